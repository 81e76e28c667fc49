"""The pairing primitives against the RFCs' vectors and against ``cryptography`` (the hub's)."""

from __future__ import annotations

import os

import pytest
from cryptography.hazmat.primitives.asymmetric.x25519 import X25519PrivateKey
from cryptography.hazmat.primitives.ciphers.aead import ChaCha20Poly1305
from cryptography.hazmat.primitives.serialization import Encoding, PublicFormat

from mesa.pairing import (
    PairingError,
    chacha20_poly1305_decrypt,
    chacha20_poly1305_encrypt,
    normalize_code,
    open_sealed,
    pairing_code,
    public_key,
    seal,
    x25519,
)


def test_rfc8439_aead_vector() -> None:
    key = bytes(range(0x80, 0xA0))
    nonce = bytes.fromhex("070000004041424344454647")
    aad = bytes.fromhex("50515253c0c1c2c3c4c5c6c7")
    text = (
        b"Ladies and Gentlemen of the class of '99: If I could offer you only one tip for the"
        b" future, sunscreen would be it."
    )
    out = chacha20_poly1305_encrypt(key, nonce, text, aad)
    assert out[-16:].hex() == "1ae10b594f09e26a7e902ecbd0600691"
    assert out[:4].hex() == "d31a8d34"
    assert chacha20_poly1305_decrypt(key, nonce, out, aad) == text


def test_rfc7748_diffie_hellman() -> None:
    a = bytes.fromhex("77076d0a7318a57d3c16c17251b26645df4c2f87ebc0992ab177fba51db92c2a")
    b = bytes.fromhex("5dab087e624a8a4b79e17f8b83800ee66f3bb1292618b6fd1c2f8b27ff88e0eb")
    assert public_key(a).hex() == (
        "8520f0098930a754748b7ddcb43ef75a0dbf3a0d26381af4eba4a98eaa9b4e6a"
    )
    assert x25519(a, public_key(b)) == x25519(b, public_key(a))


def test_the_same_as_cryptography() -> None:
    for size in (0, 1, 63, 64, 65, 3000):
        sk = os.urandom(32)
        theirs = X25519PrivateKey.from_private_bytes(sk).public_key()
        assert public_key(sk) == theirs.public_bytes(Encoding.Raw, PublicFormat.Raw)
        key, nonce, data = os.urandom(32), os.urandom(12), os.urandom(size)
        assert ChaCha20Poly1305(key).encrypt(nonce, data, b"ad") == chacha20_poly1305_encrypt(
            key, nonce, data, b"ad"
        )


def test_a_sealed_answer_opens_only_with_its_key_and_aad() -> None:
    sk, other = os.urandom(32), os.urandom(32)
    box = seal(public_key(sk), b"secret", aad=b"t")
    assert open_sealed(sk, box, aad=b"t") == b"secret"
    for key, aad, b in (
        (other, b"t", box),
        (sk, b"u", box),
        (sk, b"t", {**box, "v": 2}),
        (sk, b"t", {**box, "epk": "x"}),
        (sk, b"t", {**box, "epk": "A" * 43}),  # the zero point: a degenerate key
        (sk, b"t", "not a dict"),
    ):
        with pytest.raises(PairingError):
            open_sealed(key, b, aad=aad)


def test_codes_read_as_typed() -> None:
    code = pairing_code(public_key(os.urandom(32)))
    assert len(code) == 7 and code[3] == "-"
    assert normalize_code(code.lower()) == code
    assert normalize_code(" o1l-iI0 ") == "011-110"
    for bad in ("", "4F7-2K", "4F7-2K9X", "4F7-2KU", 7):
        with pytest.raises(PairingError):
            normalize_code(bad)
