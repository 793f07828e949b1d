"""Signature checks the stdlib lacks, for registries that sign what they serve (SPEC §3.11, §3.15).

- ``ed25519_verify``: RFC 8032 §5.1.7 Ed25519 verification, as Go's crypto/ed25519 does it
  (the signature's S below the group order): the Go checksum database signs its tree notes
  with it (registries/gosumdb.py);
- ``rsa_public_key`` and ``rsa_sha512_verify``: an RSA public key from PEM
  (SubjectPublicKeyInfo or PKCS#1, read from its DER) and RSASSA-PKCS1-v1_5 over SHA-512, as
  hex_core signs the Hex registry (registries/hex.py).

Verification only, with public keys and public data: nothing here is secret, so big-integer
arithmetic that is not constant-time is fine. Stdlib only (``hashlib``, ``hmac``, ``base64``),
imported inside the functions.
"""

from __future__ import annotations

# --- Ed25519 --------------------------------------------------------------------------------------

_P = 2 ** 255 - 19
_L = 2 ** 252 + 27742317777372353535851937790883648493
_D = -121665 * pow(121666, _P - 2, _P) % _P
_SQRT_M1 = pow(2, (_P - 1) // 4, _P)


def _point_add(a: tuple, b: tuple) -> tuple:
    # Extended twisted Edwards coordinates (X, Y, Z, T), x = X/Z, y = Y/Z, xy = T/Z.
    x1, y1, z1, t1 = a
    x2, y2, z2, t2 = b
    p = _P
    e = (y1 - x1) * (y2 - x2) % p
    f = (y1 + x1) * (y2 + x2) % p
    g = 2 * _D * t1 * t2 % p
    h = 2 * z1 * z2 % p
    e, h, f, g = f - e, f + e, h - g, h + g
    return (e * f % p, g * h % p, f * g % p, e * h % p)


def _scalar_mult(scalar: int, point: tuple) -> tuple:
    result = (0, 1, 1, 0)  # the neutral element
    while scalar:
        if scalar & 1:
            result = _point_add(result, point)
        point = _point_add(point, point)
        scalar >>= 1
    return result


def _decode_point(data: bytes) -> tuple | None:
    value = int.from_bytes(data, "little")
    sign, y = value >> 255, value & ((1 << 255) - 1)
    if y >= _P:
        return None
    x2 = (y * y - 1) * pow(_D * y * y + 1, _P - 2, _P) % _P
    x = pow(x2, (_P + 3) // 8, _P)
    if (x * x - x2) % _P:
        x = x * _SQRT_M1 % _P
    if (x * x - x2) % _P:
        return None
    if x == 0 and sign:
        return None
    if x & 1 != sign:
        x = _P - x
    return (x, y, 1, x * y % _P)


def _encode_point(point: tuple) -> bytes:
    x, y, z, _ = point
    inverse = pow(z, _P - 2, _P)
    x, y = x * inverse % _P, y * inverse % _P
    return (y | (x & 1) << 255).to_bytes(32, "little")


_BASE = _decode_point((4 * pow(5, _P - 2, _P) % _P).to_bytes(32, "little"))


def ed25519_verify(public_key: bytes, message: bytes, signature: bytes) -> bool:
    """RFC 8032 Ed25519 verification: encode([S]B - [k]A) == R, with S < L (as Go's crypto/ed25519)."""
    import hashlib

    if len(public_key) != 32 or len(signature) != 64:
        return False
    a = _decode_point(public_key)
    s = int.from_bytes(signature[32:], "little")
    if a is None or s >= _L or _decode_point(signature[:32]) is None:
        return False
    k = int.from_bytes(hashlib.sha512(signature[:32] + public_key + message).digest(), "little") % _L
    minus_a = ((_P - a[0]) % _P, a[1], a[2], (_P - a[3]) % _P)
    check = _point_add(_scalar_mult(s, _BASE), _scalar_mult(k, minus_a))
    return _encode_point(check) == signature[:32]


# --- RSA (PKCS #1 v1.5, SHA-512) ----------------------------------------------------------------

# EMSA-PKCS1-v1_5's DigestInfo prefix for SHA-512 (RFC 8017 §9.2, note 1).
_SHA512_INFO = bytes.fromhex("3051300d060960864801650304020305000440")


def _der(data: bytes, at: int = 0) -> tuple[int, bytes, int]:
    """One DER element at ``at``: (tag, contents, offset after it)."""
    tag, length = data[at], data[at + 1]
    at += 2
    if length & 0x80:
        count = length & 0x7F
        length = int.from_bytes(data[at:at + count], "big")
        at += count
    if at + length > len(data):
        raise ValueError("truncated DER")
    return tag, data[at:at + length], at + length


def rsa_public_key(pem: str) -> tuple[int, int]:
    """(n, e) of an RSA public key in PEM (SubjectPublicKeyInfo or PKCS#1)."""
    import base64

    body = "".join(line for line in pem.strip().splitlines() if line and not line.startswith("-----"))
    der = base64.b64decode(body, validate=True)
    tag, seq, _ = _der(der)
    first, inner, after = _der(seq)
    if first == 0x30:  # SubjectPublicKeyInfo: the algorithm, then a BIT STRING holding PKCS#1
        tag, bits, _ = _der(seq, after)
        if tag != 0x03:
            raise ValueError("no key bits")
        tag, seq, _ = _der(bits[1:])
    tag, n, after = _der(seq)
    tag, e, _ = _der(seq, after)
    return int.from_bytes(n, "big"), int.from_bytes(e, "big")


def rsa_sha512_verify(payload: bytes, signature: bytes, key: tuple[int, int]) -> bool:
    """RSASSA-PKCS1-v1_5 with SHA-512, as hex_core signs the registry."""
    import hashlib
    import hmac

    n, e = key
    size = (n.bit_length() + 7) // 8
    if len(signature) != size:
        return False
    encoded = pow(int.from_bytes(signature, "big"), e, n).to_bytes(size, "big")
    digest = _SHA512_INFO + hashlib.sha512(payload).digest()
    expected = b"\x00\x01" + b"\xff" * (size - len(digest) - 3) + b"\x00" + digest
    return hmac.compare_digest(encoded, expected)
