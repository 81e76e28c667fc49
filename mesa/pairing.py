"""Pairing a new table with the hub: its key, the code its screen shows, the sealed answer.

A new table's Pi makes an X25519 key pair on first boot. Its announcement carries the public
key; its screen shows a short code derived from that key (:func:`pairing_code`), which the
director types on the hub ("Mesa nueva · código 4F7-2K9"), as one pairs a Bluetooth keyboard.
The hub seals the table's credentials to that key (X25519, HKDF-SHA256, ChaCha20-Poly1305:
RFC 7748, 5869 and 8439), so only the holder of the private key can read them.

The table opens the answer with this module alone: the primitives below are the RFCs' own
algorithms in pure Python (a few milliseconds for a link file), checked against the RFCs' test
vectors here and against ``cryptography`` (which the hub seals with) in the tests. The table
needs no compiled crypto package for the one message it decrypts in its life
(docs/install.md, "Adopting a table").

>>> k = bytes.fromhex("a546e36bf0527c9d3b16154b82465edd62144c0ac1fc5a18506a2244ba449ac4")
>>> u = bytes.fromhex("e6db6867583030db3594c1a424b15f7c726624ec26b3353b10a903a6d0ab1c4c")
>>> x25519(k, u).hex()
'c3da55379de9c6908e94ea4df28d084f32eccf03491c71f754b4075577a28552'
>>> sk = bytes(range(32))
>>> code = pairing_code(public_key(sk)); len(code), code[3]
(7, '-')
>>> normalize_code(code.lower().replace("-", " ")) == code
True
>>> box = seal(public_key(sk), b"secret", aad=b"topic", ephemeral=bytes(32))
>>> open_sealed(sk, box, aad=b"topic")
b'secret'
"""

from __future__ import annotations

import base64
import hashlib
import hmac
import os
import struct
from typing import Any

from mesa.errors import MesaError


class PairingError(MesaError):
    """A pairing code or a sealed answer that is malformed or does not open."""


# ── X25519 (RFC 7748 §5) ─────────────────────────────────────────────────────────────────
_P = 2**255 - 19
_A24 = 121665


def _clamp(k: bytes) -> int:
    b = bytearray(k)
    b[0] &= 248
    b[31] &= 127
    b[31] |= 64
    return int.from_bytes(b, "little")


def x25519(k: bytes, u: bytes) -> bytes:
    """The scalar multiplication of RFC 7748 (the Montgomery ladder, constant in its steps)."""
    if len(k) != 32 or len(u) != 32:
        raise PairingError("X25519 takes 32-byte scalars and points")
    scalar = _clamp(k)
    x1 = int.from_bytes(u, "little") & ((1 << 255) - 1)
    x2, z2, x3, z3, swap = 1, 0, x1, 1, 0
    for t in reversed(range(255)):
        bit = (scalar >> t) & 1
        swap ^= bit
        if swap:
            x2, x3, z2, z3 = x3, x2, z3, z2
        swap = bit
        a, b = (x2 + z2) % _P, (x2 - z2) % _P
        aa, bb = a * a % _P, b * b % _P
        e = (aa - bb) % _P
        c, d = (x3 + z3) % _P, (x3 - z3) % _P
        da, cb = d * a % _P, c * b % _P
        x3, z3 = (da + cb) ** 2 % _P, x1 * (da - cb) ** 2 % _P
        x2, z2 = aa * bb % _P, e * (aa + _A24 * e) % _P
    if swap:
        x2, z2 = x3, z3
    return (x2 * pow(z2, _P - 2, _P) % _P).to_bytes(32, "little")


_BASE = (9).to_bytes(32, "little")


def new_private_key() -> bytes:
    return os.urandom(32)


def public_key(private: bytes) -> bytes:
    return x25519(private, _BASE)


# ── the code on the screen and the id on the broker ──────────────────────────────────────
# Crockford's base32: no I, L, O, U, so that what the director reads is what they type.
_ALPHABET = "0123456789ABCDEFGHJKMNPQRSTVWXYZ"
_READ_AS = {"O": "0", "I": "1", "L": "1"}
CODE_CHARS = 6  # 30 bits: one wrong guess in a billion, and readable at a glance


def pairing_code(public: bytes) -> str:
    """The six characters a new table shows, ``XXX-XXX``, from its public key."""
    n = int.from_bytes(hashlib.sha256(b"mesa pairing code\0" + public).digest()[:4], "big") >> 2
    chars = "".join(_ALPHABET[(n >> (5 * i)) & 31] for i in reversed(range(CODE_CHARS)))
    return f"{chars[:3]}-{chars[3:]}"


def normalize_code(text: Any) -> str:
    """A code as typed (any case, with or without its dash or spaces, O for 0, I or L for 1)
    in its shown form; :class:`PairingError` if it cannot be one.

    >>> normalize_code("4f7 2k9"), normalize_code("4F7-2KO")
    ('4F7-2K9', '4F7-2K0')
    """
    if not isinstance(text, str):
        raise PairingError("a pairing code is text")
    chars = "".join(_READ_AS.get(c, c) for c in text.upper() if c not in " -")
    if len(chars) != CODE_CHARS or any(c not in _ALPHABET for c in chars):
        raise PairingError(f"{text[:20]!r} is not a pairing code (six letters and digits)")
    return f"{chars[:3]}-{chars[3:]}"


def enrolment_id(public: bytes) -> str:
    """The key's name on the enrolment topics (``mesa/v1/enrol/<id>/…``): the hub checks
    that an announcement's key is the one its topic names, so no one can announce under
    another table's topic with a key of their own."""
    return "k" + hashlib.sha256(b"mesa enrolment id\0" + public).hexdigest()[:40]


def b64(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).decode().rstrip("=")


def unb64(text: Any, size: int | None = None) -> bytes:
    if not isinstance(text, str) or len(text) > 8192:
        raise PairingError("not base64 text")
    try:
        data = base64.urlsafe_b64decode(text + "=" * (-len(text) % 4))
    except ValueError:
        raise PairingError("not base64 text") from None
    if size is not None and len(data) != size:
        raise PairingError(f"expected {size} bytes, got {len(data)}")
    return data


# ── HKDF-SHA256 (RFC 5869) and ChaCha20-Poly1305 (RFC 8439) ──────────────────────────────
def hkdf_sha256(ikm: bytes, info: bytes, length: int = 32, salt: bytes = b"") -> bytes:
    prk = hmac.new(salt or bytes(32), ikm, hashlib.sha256).digest()
    out, block = b"", b""
    for i in range(1, -(-length // 32) + 1):
        block = hmac.new(prk, block + info + bytes([i]), hashlib.sha256).digest()
        out += block
    return out[:length]


def _rotl(v: int, n: int) -> int:
    return ((v << n) & 0xFFFFFFFF) | (v >> (32 - n))


def _chacha_block(key: bytes, counter: int, nonce: bytes) -> bytes:
    """One 64-byte ChaCha20 block (RFC 8439 §2.3).

    >>> _chacha_block(bytes(range(32)), 1, bytes.fromhex("000000090000004a00000000")).hex()[:16]
    '10f1e7e4d13b5915'
    """
    state = [0x61707865, 0x3320646E, 0x79622D32, 0x6B206574]
    state += [*struct.unpack("<8I", key), counter, *struct.unpack("<3I", nonce)]
    w = list(state)

    def qr(a: int, b: int, c: int, d: int) -> None:
        w[a] = (w[a] + w[b]) & 0xFFFFFFFF
        w[d] = _rotl(w[d] ^ w[a], 16)
        w[c] = (w[c] + w[d]) & 0xFFFFFFFF
        w[b] = _rotl(w[b] ^ w[c], 12)
        w[a] = (w[a] + w[b]) & 0xFFFFFFFF
        w[d] = _rotl(w[d] ^ w[a], 8)
        w[c] = (w[c] + w[d]) & 0xFFFFFFFF
        w[b] = _rotl(w[b] ^ w[c], 7)

    columns = [(0, 4, 8, 12), (1, 5, 9, 13), (2, 6, 10, 14), (3, 7, 11, 15)]
    rounds = [*columns, (0, 5, 10, 15), (1, 6, 11, 12), (2, 7, 8, 13), (3, 4, 9, 14)]
    for _ in range(10):  # ten double rounds: columns, then diagonals
        for a, b, c, d in rounds:
            qr(a, b, c, d)
    return struct.pack("<16I", *((x + y) & 0xFFFFFFFF for x, y in zip(w, state, strict=True)))


def _chacha20(key: bytes, counter: int, nonce: bytes, data: bytes) -> bytes:
    out = bytearray()
    for i in range(0, len(data), 64):
        block = _chacha_block(key, counter + i // 64, nonce)
        out += bytes(x ^ y for x, y in zip(data[i : i + 64], block, strict=False))
    return bytes(out)


def _poly1305(key: bytes, msg: bytes) -> bytes:
    r = int.from_bytes(key[:16], "little") & 0x0FFFFFFC0FFFFFFC0FFFFFFC0FFFFFFF
    s = int.from_bytes(key[16:], "little")
    p, acc = (1 << 130) - 5, 0
    for i in range(0, len(msg), 16):
        acc = (acc + int.from_bytes(msg[i : i + 16] + b"\x01", "little")) * r % p
    return ((acc + s) & ((1 << 128) - 1)).to_bytes(16, "little")


def _tag(key: bytes, nonce: bytes, aad: bytes, ct: bytes) -> bytes:
    otk = _chacha_block(key, 0, nonce)[:32]

    def pad(b: bytes) -> bytes:
        return b + bytes(-len(b) % 16)

    return _poly1305(otk, pad(aad) + pad(ct) + struct.pack("<QQ", len(aad), len(ct)))


def chacha20_poly1305_encrypt(key: bytes, nonce: bytes, data: bytes, aad: bytes) -> bytes:
    ct = _chacha20(key, 1, nonce, data)
    return ct + _tag(key, nonce, aad, ct)


def chacha20_poly1305_decrypt(key: bytes, nonce: bytes, data: bytes, aad: bytes) -> bytes:
    if len(key) != 32 or len(nonce) != 12 or len(data) < 16:
        raise PairingError("malformed sealed data")
    ct, tag = data[:-16], data[-16:]
    if not hmac.compare_digest(_tag(key, nonce, aad, ct), tag):
        raise PairingError("the answer does not open with this table's key")
    return _chacha20(key, 1, nonce, ct)


# ── the sealed answer ────────────────────────────────────────────────────────────────────
SEAL_VERSION = 1
MAX_SEALED_BYTES = 32768


def answer_key(shared: bytes, ephemeral_public: bytes, table_public: bytes) -> bytes:
    """The answer's key from the X25519 secret, bound to both public keys."""
    if shared == bytes(32):
        raise PairingError("a degenerate key")  # a low-order point: refuse, RFC 7748 §6.1
    return hkdf_sha256(shared, b"mesa enrol answer v1\0" + ephemeral_public + table_public)


def seal(
    table_public: bytes, data: bytes, *, aad: bytes, ephemeral: bytes | None = None
) -> dict[str, Any]:
    """``data`` sealed to ``table_public`` (the pure-Python twin of the hub's sealing; the
    tests check that both agree). ``ephemeral``: a fixed key, for doctests only."""
    eph = ephemeral if ephemeral is not None else new_private_key()
    eph_pub = public_key(eph)
    key = answer_key(x25519(eph, table_public), eph_pub, table_public)
    nonce = os.urandom(12) if ephemeral is None else bytes(12)
    box = chacha20_poly1305_encrypt(key, nonce, data, aad)
    return {"v": SEAL_VERSION, "epk": b64(eph_pub), "nonce": b64(nonce), "box": b64(box)}


def open_sealed(private: bytes, sealed: Any, *, aad: bytes) -> bytes:
    """The plaintext of a :func:`seal` message; :class:`PairingError` unless it was sealed
    to this key (and for ``aad``, the answer's topic)."""
    if not isinstance(sealed, dict) or sealed.get("v") != SEAL_VERSION:
        raise PairingError("not a sealed answer")
    eph_pub = unb64(sealed.get("epk"), 32)
    nonce = unb64(sealed.get("nonce"), 12)
    box = unb64(sealed.get("box"))
    mine = public_key(private)
    key = answer_key(x25519(private, eph_pub), eph_pub, mine)
    return chacha20_poly1305_decrypt(key, nonce, box, aad)
