"""Proto enum values as the words users read and type, the same words as
the CLI's: LEVEL_TRACE is "trace", TARGET_GPU "gpu", SESSION_STATE_EXITED
"exited", SPAN_STATUS_COMPLETE_WITHOUT_LAUNCH "complete-without-launch".
An *_UNSPECIFIED value is None. The words come from the enum descriptors,
so values added to the proto get words without a change here.
"""

import re

# Extra words accepted on input, by enum full name.
_ALIASES = {
    "optrace.v1.Level": {"warn": "warning"},
    "optrace.v1.ExportFormat": {"chrome": "chrome-json", "json": "chrome-json"},
}


def _prefix(enum_descriptor):
    # Level -> LEVEL_, SessionState -> SESSION_STATE_, LiveEvent.Kind -> KIND_
    return re.sub(r"(?<!^)(?=[A-Z])", "_", enum_descriptor.name).upper() + "_"


def _word(enum_descriptor, value_name):
    prefix = _prefix(enum_descriptor)
    if value_name.startswith(prefix):
        value_name = value_name[len(prefix):]
    return value_name.lower().replace("_", "-")


_words_cache = {}


def _words(enum_descriptor):
    """{number: word} of the enum, without UNSPECIFIED."""
    words = _words_cache.get(enum_descriptor.full_name)
    if words is None:
        words = {v.number: _word(enum_descriptor, v.name) for v in enum_descriptor.values
                 if v.number != 0}
        _words_cache[enum_descriptor.full_name] = words
    return words


def word_of(enum_descriptor, number):
    """The word of enum value `number`; None for 0 (unspecified). A number
    that these stubs do not know (a newer daemon) stays a number."""
    if number == 0:
        return None
    return _words(enum_descriptor).get(number, number)


def value_of(enum_descriptor, word, what):
    """The enum number of `word` (case-insensitive, aliases included).
    Raises ValueError naming `what` and the valid words."""
    words = _words(enum_descriptor)
    if isinstance(word, str):
        text = word.strip().lower().replace("_", "-")
        text = _ALIASES.get(enum_descriptor.full_name, {}).get(text, text)
        for number, candidate in words.items():
            if candidate == text:
                return number
    valid = ", ".join(repr(w) for w in words.values())
    raise ValueError(f"{what} must be one of {valid}, not {word!r}")
