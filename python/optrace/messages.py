"""The API's messages as plain Python dataclasses, with the proto's field
names: one dataclass per message (Session, Span, OpStats, ...), made from
the generated descriptors, so that fields added to the proto appear here
without a change.

Conversion rules:
* scalars stay ints, floats, strs, bools, bytes;
* enums are words ("trace", "gpu", "exited"; see optrace.words), None when
  unspecified;
* a message field is its dataclass, or None when the daemon left it unset;
  a field with explicit presence (proto3 `optional`) is None when unset;
* repeated fields are Rows (a list with to_pandas()), maps are dicts.

One rename: the group key of a stats row (OpStats.key) is `name`,
whatever the grouping. A field named like a Python keyword gets a
trailing underscore (`from` would be `from_`).
"""

import dataclasses
import keyword
import typing

from google.protobuf.descriptor import FieldDescriptor

from optrace.v1 import optrace_pb2
from optrace.words import word_of

# Fields whose Python name differs from the proto's, by message full name.
_RENAMES = {"optrace.v1.OpStats": {"key": "name"}}


def _device_str(device):
    return f"{device.target}:{device.ordinal}"


# Methods some dataclasses have besides their fields.
_METHODS = {"optrace.v1.Device": {"__str__": _device_str}}


class Rows(list):
    """A list of API objects (sessions, spans, stats rows, ...)."""

    def to_pandas(self):
        """The rows as a pandas.DataFrame, nested fields as dotted columns
        (device.target). Needs pandas (Debian: python3-pandas)."""
        try:
            import pandas
        except ImportError as e:
            raise ImportError("to_pandas() needs pandas (apt-get install python3-pandas)") from e
        return pandas.json_normalize([dataclasses.asdict(row) for row in self])


_SCALAR_TYPES = {
    FieldDescriptor.TYPE_DOUBLE: float, FieldDescriptor.TYPE_FLOAT: float,
    FieldDescriptor.TYPE_BOOL: bool, FieldDescriptor.TYPE_STRING: str,
    FieldDescriptor.TYPE_BYTES: bytes,
}

_classes = {}     # message full name -> dataclass
_converters = {}  # message full name -> [(python name, proto name, convert(message, proto name))]


def _is_map(field):
    return (field.type == FieldDescriptor.TYPE_MESSAGE
            and field.message_type.GetOptions().map_entry)


def _value_converter(field):
    """convert(value) of one (non-repeated) value of `field`."""
    if field.type == FieldDescriptor.TYPE_ENUM:
        enum = field.enum_type
        return lambda value: word_of(enum, value)
    if field.type == FieldDescriptor.TYPE_MESSAGE:
        return to_python
    return lambda value: value


def _field_converter(field):
    """convert(message, name) -> the Python value of `field` of `message`."""
    if _is_map(field):
        convert = _value_converter(field.message_type.fields_by_name["value"])
        return lambda message, name: {k: convert(v) for k, v in getattr(message, name).items()}
    convert = _value_converter(field)
    if field.label == FieldDescriptor.LABEL_REPEATED:
        return lambda message, name: Rows(convert(v) for v in getattr(message, name))
    if field.has_presence:
        return lambda message, name: (convert(getattr(message, name))
                                      if message.HasField(name) else None)
    return lambda message, name: convert(getattr(message, name))


def _python_type(field):
    if _is_map(field):
        return dict
    if field.label == FieldDescriptor.LABEL_REPEATED:
        return Rows
    if field.type == FieldDescriptor.TYPE_ENUM:
        return typing.Optional[str]
    if field.type == FieldDescriptor.TYPE_MESSAGE:
        return typing.Optional[typing.Any]
    kind = _SCALAR_TYPES.get(field.type, int)
    return typing.Optional[kind] if field.has_presence else kind


def _default(field):
    if _is_map(field):
        return dataclasses.field(default_factory=dict)
    if field.label == FieldDescriptor.LABEL_REPEATED:
        return dataclasses.field(default_factory=Rows)
    if field.has_presence or field.type in (FieldDescriptor.TYPE_ENUM,
                                            FieldDescriptor.TYPE_MESSAGE):
        return None
    return _SCALAR_TYPES.get(field.type, int)()


def dataclass_of(descriptor):
    """The dataclass of the message type `descriptor`, made on first use."""
    cls = _classes.get(descriptor.full_name)
    if cls is not None:
        return cls
    renames = _RENAMES.get(descriptor.full_name, {})
    fields, converters = [], []
    for field in descriptor.fields:
        name = renames.get(field.name, field.name)
        if keyword.iskeyword(name):
            name += "_"
        fields.append((name, _python_type(field), _default(field)))
        converters.append((name, field.name, _field_converter(field)))
    cls = dataclasses.make_dataclass(
        descriptor.name, fields, namespace=dict(_METHODS.get(descriptor.full_name, {})),
        repr=True, eq=True)
    cls.__module__ = "optrace.messages"
    cls.__doc__ = f"optrace.v1.{descriptor.name} (proto/optrace/v1/optrace.proto) as a dataclass."
    _classes[descriptor.full_name] = cls
    _converters[descriptor.full_name] = converters
    return cls


def to_python(message):
    """The dataclass instance of the proto message `message`."""
    descriptor = message.DESCRIPTOR
    cls = dataclass_of(descriptor)
    return cls(**{name: convert(message, proto_name)
                  for name, proto_name, convert in _converters[descriptor.full_name]})


def _define_all():
    # Every message of the API as optrace.messages.<Name>, for isinstance()
    # and help(); nested messages too (TailBatch, ...).
    pending = list(optrace_pb2.DESCRIPTOR.message_types_by_name.values())
    while pending:
        descriptor = pending.pop()
        if descriptor.GetOptions().map_entry:
            continue
        globals()[descriptor.name] = dataclass_of(descriptor)
        pending.extend(descriptor.nested_types)


_define_all()
