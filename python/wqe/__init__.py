# SPDX-License-Identifier: MIT
"""wqe: the golden RDMA NIC model from Python (ctypes over libwqe_dpi).

    import wqe
    wqe.encode('write raddr=0x1000 rkey=7 inline=a0a1', format='rxe')  # bytes
    wqe.packets('send sge=0x1000:3000:1', pmtu=1024)       # [frame, ...]
    wqe.decode(wqe_bytes, qp='rc')                         # {'op': 3, ...}
    wqe.icrc(frame)                                        # int
    wqe.parse(frame)                                       # {'psn': 0, ...}

Keyword arguments are the options of `wqe encode`, the dashes of their
names as underscores: format='rxe', qp='ud', qpn=0x12, wqe_index=5,
max_sge=8, max_inline=64, sig_all=True, pmtu=4096, psn=7, src_ip='::1',
dst_ip=..., dqpn=..., sport=..., smac=..., dmac=..., pkey=..., qkey=...
A flag takes True (False or None leaves it out); any other value is passed
as its str(). The options are parsed by the library, with the CLI's own
parser: an unknown option or a bad value raises ValueError with the same
message the CLI gives, and nothing is printed. Every error of the library
raises ValueError carrying its message.

Thread-safe: the library keeps no state; calls may run on many threads.
"""

import ctypes

from . import _libpath

__all__ = ["encode", "encode_fields", "packets", "decode", "icrc", "parse", "LIBRARY"]

LIBRARY = _libpath.LIBRARY
_lib = ctypes.CDLL(LIBRARY)

# The sizes of wqe/dpi.h.
WQE_MAX = 1024
FRAME_MAX = 4352
MSG_MAX = 256
FIELDS_MAX = 256
# The shortest frame (Ethernet, IPv4, UDP, BTH, ICRC): bounds a count.
_MIN_FRAME = 14 + 20 + 8 + 12 + 4
_ESPACE = -6

_u8p = ctypes.c_char_p  # const unsigned char *: bytes pass as they are
_buf = ctypes.c_char_p
_int = ctypes.c_int
_uint = ctypes.c_uint
_ull = ctypes.c_ulonglong


def _proto(name, restype, *argtypes):
    fn = getattr(_lib, name)
    fn.restype = restype
    fn.argtypes = list(argtypes)
    return fn


_encode = _proto("wqe_dpi_encode", _int, _buf, _buf, ctypes.c_void_p, _int, ctypes.c_void_p, _int)
_encode_fields = _proto(
    "wqe_dpi_encode_fields", _int, _buf, _int, _uint, _ull, _ull, _uint, _uint, _ull, _ull,
    _uint, _uint, _int, ctypes.POINTER(_ull), ctypes.POINTER(_uint), ctypes.POINTER(_uint),
    _u8p, _int, ctypes.c_void_p, _int, ctypes.c_void_p, _int)
_decode = _proto("wqe_dpi_decode", _int, _buf, _u8p, _int, ctypes.POINTER(_ull), _int,
                 ctypes.c_void_p, _int)
_decode_field = _proto("wqe_dpi_decode_field", ctypes.c_char_p, _int)
_line_packets = _proto("wqe_dpi_line_packets", _int, _buf, _buf, ctypes.c_void_p, _int,
                       ctypes.POINTER(_int), _int, ctypes.POINTER(_int), ctypes.c_void_p, _int)
_icrc = _proto("wqe_dpi_icrc", _int, _u8p, _int, ctypes.POINTER(_uint), ctypes.c_void_p, _int)
_parse = _proto("wqe_dpi_parse", _int, _u8p, _int, ctypes.POINTER(_ull), _int, ctypes.c_void_p,
                _int)
_parse_field = _proto("wqe_dpi_parse_field", ctypes.c_char_p, _int)


def _options(opts):
    """The keyword arguments as one options string, as on the command line."""
    words = []
    for key, value in opts.items():
        name = "--" + key.replace("_", "-")
        if value is True:
            words.append(name)
        elif value is False or value is None:
            continue
        else:
            text = str(value)
            # One word per option: a value must not smuggle in another.
            if not text or any(c.isspace() for c in text):
                raise ValueError("bad value %r for %s" % (value, name))
            words.append(name + "=" + text)
    return " ".join(words).encode()


def _text(s, what):
    if isinstance(s, bytes):
        return s
    if not isinstance(s, str):
        raise TypeError("%s must be str, not %s" % (what, type(s).__name__))
    return s.encode()


def _bytes(data, what):
    try:
        return bytes(data)
    except TypeError:
        raise TypeError("%s must be bytes-like, not %s" % (what, type(data).__name__)) from None


def _check(rc, msg):
    if rc < 0:
        raise ValueError(msg.value.decode(errors="replace") or "wqe error %d" % rc)
    return rc


def encode(line, **opts):
    """The WQE of one request line: the bytes `wqe encode --raw` prints."""
    out = ctypes.create_string_buffer(WQE_MAX)
    msg = ctypes.create_string_buffer(MSG_MAX)
    n = _check(_encode(_text(line, "line"), _options(opts), out, WQE_MAX, msg, MSG_MAX), msg)
    return out.raw[:n]


def encode_fields(opcode, flags=0, wr_id=0, raddr=0, rkey=0, imm=0, swap_add=0, compare=0,
                  dqpn=0, qkey=0, sge=(), inline=b"", **opts):
    """The WQE of a request given by fields (wqe_dpi_encode_fields()).

    opcode: an enum wqe_wr_opcode value (WRITE 0, WRITE_IMM 1, SEND 2,
    SEND_IMM 3, READ 4, CAS 5, FAA 6, SEND_INV 9); flags: FENCE 1,
    SIGNALED 2, SOLICITED 4; sge: (addr, length, lkey) tuples; inline: the
    payload carried in the WQE.
    """
    n = len(sge)
    addr = (_ull * max(n, 1))(*[s[0] for s in sge])
    length = (_uint * max(n, 1))(*[s[1] for s in sge])
    lkey = (_uint * max(n, 1))(*[s[2] for s in sge])
    data = _bytes(inline, "inline")
    out = ctypes.create_string_buffer(WQE_MAX)
    msg = ctypes.create_string_buffer(MSG_MAX)
    rc = _encode_fields(_options(opts), opcode, flags, wr_id, raddr, rkey, imm, swap_add, compare,
                        dqpn, qkey, n, addr, length, lkey, data, len(data), out, WQE_MAX, msg,
                        MSG_MAX)
    return out.raw[:_check(rc, msg)]


def packets(line, **opts):
    """The frames `wqe encode --packets` builds for one request line (those
    its --pcap writes), Ethernet header to ICRC."""
    text, words = _text(line, "line"), _options(opts)
    msg = ctypes.create_string_buffer(MSG_MAX)
    needed = _int(0)
    rc = _line_packets(text, words, None, 0, None, 0, ctypes.byref(needed), msg, MSG_MAX)
    if rc != _ESPACE:
        _check(rc, msg)
        return []
    cap = needed.value
    maxpkts = cap // _MIN_FRAME + 1
    out = ctypes.create_string_buffer(max(cap, 1))
    lens = (_int * maxpkts)()
    n = _check(_line_packets(text, words, out, cap, lens, maxpkts, ctypes.byref(needed), msg,
                             MSG_MAX), msg)
    frames, off, raw = [], 0, out.raw
    for k in range(n):
        frames.append(raw[off:off + lens[k]])
        off += lens[k]
    return frames


def _names(fn):
    names, i = [], 0
    while True:
        name = fn(i).decode()
        if not name:
            return names
        names.append(name)
        i += 1


_DECODE_NAMES = _names(_decode_field)
_PARSE_NAMES = _names(_parse_field)


def decode(data, **opts):
    """Decode WQE bytes as the NIC does: a dict of its fields and of what the
    NIC does with it (status, completes, npkts, npsn, first_opcode); 'sge'
    is a list of {'addr', 'length', 'lkey'} dicts. Options as for encode()
    (format=, qp=, qpn=, sig_all=) and the path (pmtu=, ...)."""
    raw = _bytes(data, "data")
    fields = (_ull * FIELDS_MAX)()
    msg = ctypes.create_string_buffer(MSG_MAX)
    n = _check(_decode(_options(opts), raw, len(raw), fields, FIELDS_MAX, msg, MSG_MAX), msg)
    out, sges = {}, []
    for i in range(n):
        name = _DECODE_NAMES[i]
        if name.startswith("sge_"):
            if name == "sge_addr":
                sges.append({})
            sges[-1][name[4:]] = fields[i]
        else:
            out[name] = fields[i]
    out["sge"] = sges
    return out


def icrc(frame):
    """The ICRC of a RoCEv2 frame (Ethernet to ICRC), computed over its bytes."""
    raw = _bytes(frame, "frame")
    value = _uint(0)
    msg = ctypes.create_string_buffer(MSG_MAX)
    _check(_icrc(raw, len(raw), ctypes.byref(value), msg, MSG_MAX), msg)
    return value.value


def parse(frame):
    """The header fields of a RoCEv2 frame as a dict (wqe_dpi_parse())."""
    raw = _bytes(frame, "frame")
    fields = (_ull * FIELDS_MAX)()
    msg = ctypes.create_string_buffer(MSG_MAX)
    n = _check(_parse(raw, len(raw), fields, FIELDS_MAX, msg, MSG_MAX), msg)
    return {_PARSE_NAMES[i]: fields[i] for i in range(n)}
