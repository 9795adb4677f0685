"""Ed25519 signature verification in pure Python, from RFC 8032 §5.1 (no native code).

fairdeal signs with ``cryptography`` (OpenSSL); this module only *verifies*, for where that
library cannot be installed — above all the visitor's browser, where the verifier runs under
Pyodide and ``cryptography`` has no wheel. ``keys.verify_signature`` uses it only then.

It refuses exactly what OpenSSL's ``ossl_ed25519_verify`` refuses (tests/verifier/test_ed25519.py
compares the two on thousands of random keys and on crafted encodings):

- ``S`` must be below the group order ``L`` (RFC 8032 §5.1.7 step 1, no malleable signatures);
- the public key ``A`` must decode as a point (§5.1.3); like OpenSSL, a ``y`` coordinate at or
  above ``p`` is reduced rather than refused, and ``x = 0`` with the sign bit set is accepted;
- ``R`` is not decoded: the check is ``encode([S]B - [k]A) == R`` byte for byte, so a
  non-canonical ``R`` never matches (the cofactorless equation, as OpenSSL computes it).

Variable time is fine here: everything verified is public.

>>> verify(bytes.fromhex("d75a980182b10ab7d54bfed3c964073a0ee172f3daa62325af021a68f707511a"),
...        bytes.fromhex("e5564300c360ac729086e2cc806e828a84877f1eb8e5d974d873e0652249015"
...                      "55fb8821590a33bacc61e39701cf9b46bd25bf5f0595bbe24655141438e7a100b"), b"")
"""

from __future__ import annotations

import hashlib

from .errors import FairdealError

__all__ = ["BadSignature", "L", "P", "decode_point", "encode_point", "verify"]

#: the field prime and the order of the base point's group
P = 2**255 - 19
L = 2**252 + 27742317777372353535851937790883648493
_D = -121665 * pow(121666, P - 2, P) % P
_D2 = 2 * _D % P
_SQRT_M1 = pow(2, (P - 1) // 4, P)

#: a point in extended coordinates (X, Y, Z, T) with x = X/Z, y = Y/Z, x*y = T/Z (§5.1.4)
Point = tuple[int, int, int, int]
_IDENTITY: Point = (0, 1, 1, 0)
_BASE_Y = 4 * pow(5, P - 2, P) % P


class BadSignature(FairdealError):
    """The signature does not verify; the message says which step refused it."""


def _add(p: Point, q: Point) -> Point:
    """Point addition, RFC 8032 §5.1.4 (complete: also right for doubling and the identity)."""
    x1, y1, z1, t1 = p
    x2, y2, z2, t2 = q
    a = (y1 - x1) * (y2 - x2) % P
    b = (y1 + x1) * (y2 + x2) % P
    c = t1 * _D2 * t2 % P
    d = 2 * z1 * z2 % P
    e, f, g, h = b - a, d - c, d + c, b + a
    return e * f % P, g * h % P, f * g % P, e * h % P


def _double(p: Point) -> Point:
    """Point doubling, RFC 8032 §5.1.4 (cheaper than adding a point to itself)."""
    x1, y1, z1, _ = p
    a = x1 * x1 % P
    b = y1 * y1 % P
    c = 2 * z1 * z1 % P
    h = a + b
    e = h - (x1 + y1) * (x1 + y1)
    g = a - b
    f = c + g
    return e * f % P, g * h % P, f * g % P, e * h % P


def _negate(p: Point) -> Point:
    x, y, z, t = p
    return (P - x) % P, y, z, (P - t) % P


def _recover_x(y: int, sign: int) -> int | None:
    """The x coordinate for ``y`` with the given sign bit (§5.1.3 steps 2-4), or None."""
    y2 = y * y % P
    u = (y2 - 1) % P
    v = (_D * y2 + 1) % P
    x = u * pow(v, 3, P) * pow(u * pow(v, 7, P), (P - 5) // 8, P) % P
    vx2 = v * x * x % P
    if vx2 == u:
        pass
    elif vx2 == (P - u) % P:
        x = x * _SQRT_M1 % P
    else:
        return None
    # RFC 8032 refuses x = 0 with the sign bit set; OpenSSL accepts it (negating 0 is 0), and
    # fairdeal must judge a signature the way its signer's library does
    if x & 1 != sign:
        x = (P - x) % P
    return x


def decode_point(data: bytes) -> Point | None:
    """The point a 32-byte encoding names, as OpenSSL decodes a public key; None if none."""
    if len(data) != 32:
        return None
    number = int.from_bytes(data, "little")
    sign = number >> 255
    # OpenSSL reduces a y at or above p instead of refusing it (RFC 8032 would refuse)
    y = (number & ((1 << 255) - 1)) % P
    x = _recover_x(y, sign)
    if x is None:
        return None
    return x, y, 1, x * y % P


def _inverse(z: int) -> int:
    """1/z mod p, by Euclid's algorithm (pow with exponent -1: 5-6 times faster here than
    Fermat's z^(p-2), the RFC's way); 0 for z = 0, as Fermat's gives (a point on the curve
    never has Z = 0, the addition being complete)."""
    return pow(z, -1, P) if z % P else 0


def encode_point(p: Point) -> bytes:
    """The canonical 32-byte encoding of a point (§5.1.2)."""
    x, y, z, _ = p
    inverse = _inverse(z)
    x, y = x * inverse % P, y * inverse % P
    return (y | ((x & 1) << 255)).to_bytes(32, "little")


_BASE_X = _recover_x(_BASE_Y, 0) or 0
_BASE: Point = (_BASE_X, _BASE_Y, 1, _BASE_X * _BASE_Y % P)
#: a point made ready to be added, from x and y: (y + x, y - x, 2d * x * y), so that adding it
#: to a point in extended coordinates takes 7 multiplications instead of 9 (its Z is 1)
Addend = tuple[int, int, int]
#: for each 6-bit window i, the addends [j * 64^i] P for the digits j = -32..31, digit j at
#: index j % 64: [scalar] P then takes one addition a window (43) and no doubling
Table = list[list[Addend]]
_WINDOW_BITS = 6
_DIGITS = 1 << _WINDOW_BITS
#: windows enough for a scalar below 2^256 written in signed digits (the last takes the carry)
_WINDOWS = 256 // _WINDOW_BITS + 1
#: the base point's table, built on first use (43 rows of 32 additions, once per process)
_base_table: Table = []
#: the same tables for keys that sign many events (a seat signs every move of a match): a key
#: seen _TABLE_AFTER times gets one, so each further check needs no doubling at all
_key_tables: dict[bytes, Table] = {}
_key_uses: dict[bytes, int] = {}
_TABLE_AFTER = 3
_KEYS_KEPT = 8


def _addends(points: list[Point]) -> list[Addend]:
    """``points`` as addends, with one inversion for all of them (Montgomery's trick: the
    running products of the Z coordinates are inverted once, then unwound)."""
    products = []
    running = 1
    for point in points:
        running = running * point[2] % P
        products.append(running)
    inverse = _inverse(running)
    addends: list[Addend] = []
    for index in range(len(points) - 1, -1, -1):
        x, y, z, _ = points[index]
        z_inverse = inverse * products[index - 1] % P if index else inverse
        inverse = inverse * z % P
        x, y = x * z_inverse % P, y * z_inverse % P
        addends.append(((y + x) % P, (y - x) % P, x * y % P * _D2 % P))
    addends.reverse()
    return addends


def _add_addend(p: Point, q: Addend) -> Point:
    """p + q, RFC 8032 §5.1.4's addition with q's Z = 1 and its products made beforehand."""
    x1, y1, z1, t1 = p
    y_plus_x, y_minus_x, t2d = q
    a = (y1 - x1) * y_minus_x % P
    b = (y1 + x1) * y_plus_x % P
    c = t1 * t2d % P
    d = 2 * z1
    e, f, g, h = b - a, d - c, d + c, b + a
    return e * f % P, g * h % P, f * g % P, e * h % P


def _window_table(point: Point) -> Table:
    """[j * 64^i] point for i < _WINDOWS, j = -32..31 (1,300 additions and one inversion:
    worth it for a point used often). The negative digits cost nothing more: -q's addend is
    q's with y + x and y - x swapped and 2dxy negated."""
    multiples: list[Point] = []
    row_base = point
    for _ in range(_WINDOWS):
        row = [row_base]
        for _ in range(_DIGITS // 2 - 1):
            row.append(_add(row[-1], row_base))
        multiples.extend(row)
        row_base = _double(row[-1])  # 64 times this row's base: the next row's
    addends = _addends(multiples)
    half = _DIGITS // 2
    table = []
    for window in range(_WINDOWS):
        positive = addends[window * half:(window + 1) * half]  # digits 1..32
        digits = [(1, 1, 0)] + positive[:half - 1]  # digits 0..31 (0: the identity's addend)
        digits.extend((y_minus_x, y_plus_x, (P - t2d) % P)  # digits -32..-1
                      for y_plus_x, y_minus_x, t2d in reversed(positive))
        table.append(digits)
    return table


def _times_table(scalar: int, table: Table, total: Point = _IDENTITY) -> Point:
    """total + [scalar] P for 0 <= scalar < 2^256, P the point ``table`` was built for: the
    scalar in signed 6-bit digits (-32..31), least significant first, one addition each."""
    carry = 0
    for window in range(_WINDOWS):
        digit = (scalar & (_DIGITS - 1)) + carry
        scalar >>= _WINDOW_BITS
        carry = 1 if digit >= _DIGITS // 2 else 0  # from 32 up, a digit is taken as digit - 64
        if digit != 0 and digit != _DIGITS:
            total = _add_addend(total, table[window][digit & (_DIGITS - 1)])
    return total


def _times_base(scalar: int) -> Point:
    """[scalar] B for 0 <= scalar < 2^256, from the precomputed windows."""
    if not _base_table:
        _base_table.extend(_window_table(_BASE))
    return _times_table(scalar, _base_table)


def _new_key_table(public: bytes, negated: Point) -> Table | None:
    """The window table of -A for a key without one, once it is used often enough; None
    while it is not worth one."""
    uses = _key_uses.get(public, 0) + 1
    if uses < _TABLE_AFTER:
        if len(_key_uses) >= 4 * _KEYS_KEPT:
            _key_uses.clear()
        _key_uses[public] = uses
        return None
    if len(_key_tables) >= _KEYS_KEPT:
        _key_tables.pop(next(iter(_key_tables)))
    table = _key_tables[public] = _window_table(negated)
    return table


def _times(scalar: int, point: Point) -> Point:
    """[scalar] point by fixed 4-bit windows, most significant first."""
    multiples = [_IDENTITY, point]
    for _ in range(14):
        multiples.append(_add(multiples[-1], point))
    total = _IDENTITY
    for window in range(63, -1, -1):
        total = _double(_double(_double(_double(total))))
        digit = (scalar >> (4 * window)) & 15
        if digit:
            total = _add(total, multiples[digit])
    return total


def verify(public: bytes, signature: bytes, message: bytes) -> None:
    """Check that ``signature`` is ``public``'s Ed25519 signature of ``message`` (§5.1.7).

    Returns nothing; raises BadSignature naming the step that refused it."""
    if len(public) != 32:
        raise BadSignature(f"a public key is 32 bytes, got {len(public)}")
    if len(signature) != 64:
        raise BadSignature(f"a signature is 64 bytes, got {len(signature)}")
    r_bytes, s_bytes = signature[:32], signature[32:]
    # (1) S below the group order; A a point on the curve
    s = int.from_bytes(s_bytes, "little")
    if s >= L:
        raise BadSignature("S is not below the group order L")
    # (a key with a table decoded as a point when the table was built from it)
    table = _key_tables.get(public)
    negated = _IDENTITY
    if table is None:
        a = decode_point(public)
        if a is None:
            raise BadSignature("the public key is not a point on the curve")
        negated = _negate(a)
        table = _new_key_table(public, negated)
    # (2) k = SHA-512(R || A || M) as a little-endian integer, reduced mod L
    k = int.from_bytes(hashlib.sha512(r_bytes + public + message).digest(), "little") % L
    # (3) [S]B - [k]A must be R, compared as encodings
    if table is not None:
        check = _times_table(k, table, _times_base(s))
    else:
        check = _add(_times_base(s), _times(k, negated))
    if encode_point(check) != r_bytes:
        raise BadSignature("the signature does not match the key and the message")
