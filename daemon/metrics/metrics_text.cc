#include "metrics/metrics_text.h"

#include <charconv>
#include <cmath>
#include <iterator>

namespace optrace::daemon {

std::string_view CutUtf8(std::string_view text, size_t max_bytes) {
  if (text.size() <= max_bytes) return text;
  size_t end = max_bytes;
  // Back up over continuation bytes (10xxxxxx) to the start of the
  // sequence the cut falls in, at most 3 of them: a sequence is at most 4
  // bytes, and longer runs are not UTF-8 anyway.
  size_t backed = 0;
  while (end > 0 && backed < 3 && (static_cast<unsigned char>(text[end]) & 0xC0) == 0x80) {
    --end;
    ++backed;
  }
  if ((static_cast<unsigned char>(text[end]) & 0xC0) == 0x80) end = max_bytes;  // not UTF-8
  return text.substr(0, end);
}

std::string EscapeLabelValue(std::string_view value) {
  std::string out;
  out.reserve(value.size());
  for (const char c : value) {
    switch (c) {
      case '\\':
        out += "\\\\";
        break;
      case '"':
        out += "\\\"";
        break;
      case '\n':
        out += "\\n";
        break;
      default:
        out += c;
    }
  }
  return out;
}

void MetricsText::Family(std::string_view name, std::string_view type, std::string_view help) {
  out_ += "# HELP ";
  out_ += name;
  out_ += ' ';
  for (const char c : help) {
    if (c == '\\') {
      out_ += "\\\\";
    } else if (c == '\n') {
      out_ += "\\n";
    } else {
      out_ += c;
    }
  }
  out_ += "\n# TYPE ";
  out_ += name;
  out_ += ' ';
  out_ += type;
  out_ += '\n';
}

std::string MetricsText::LabelText(std::initializer_list<MetricLabel> labels) {
  std::string out;
  for (const MetricLabel& label : labels) {
    if (!out.empty()) out += ',';
    out += label.name;
    out += "=\"";
    out += EscapeLabelValue(label.value);
    out += '"';
  }
  return out;
}

void MetricsText::SampleStart(std::string_view name, std::initializer_list<MetricLabel> labels) {
  out_ += name;
  if (labels.size() == 0) {
    out_ += ' ';
    return;
  }
  out_ += '{';
  out_ += LabelText(labels);
  out_ += "} ";
}

void MetricsText::SampleStartWithLabelText(std::string_view name, std::string_view label_text,
                                           std::string_view le) {
  out_ += name;
  out_ += '{';
  out_ += label_text;
  if (!le.empty()) {
    out_ += ",le=\"";
    out_ += le;
    out_ += '"';
  }
  out_ += "} ";
}

void MetricsText::EndSample(uint64_t value) {
  char digits[24];
  const auto written = std::to_chars(std::begin(digits), std::end(digits), value);
  out_.append(digits, written.ptr);
  out_ += '\n';
}

void MetricsText::EndSample(double value) {
  if (std::isinf(value)) {
    out_ += value > 0 ? "+Inf" : "-Inf";
  } else if (std::isnan(value)) {
    out_ += "NaN";
  } else {
    char digits[32];
    const auto written = std::to_chars(std::begin(digits), std::end(digits), value);
    out_.append(digits, written.ptr);
  }
  out_ += '\n';
}

std::string MetricsText::NumberText(double value) {
  MetricsText text;
  text.EndSample(value);
  std::string out = text.Take();
  out.pop_back();
  return out;
}

void MetricsText::SampleWithLabelText(std::string_view name, std::string_view label_text,
                                      std::string_view le, uint64_t value) {
  SampleStartWithLabelText(name, label_text, le);
  EndSample(value);
}

void MetricsText::SampleWithLabelText(std::string_view name, std::string_view label_text,
                                      std::string_view le, double value) {
  SampleStartWithLabelText(name, label_text, le);
  EndSample(value);
}

void MetricsText::Sample(std::string_view name, std::initializer_list<MetricLabel> labels,
                         uint64_t value) {
  SampleStart(name, labels);
  EndSample(value);
}

void MetricsText::Sample(std::string_view name, std::initializer_list<MetricLabel> labels,
                         double value) {
  SampleStart(name, labels);
  EndSample(value);
}

}  // namespace optrace::daemon
