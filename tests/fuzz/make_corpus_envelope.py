#!/usr/bin/env python3
"""Write the seed corpus of tests/fuzz/fuzz_envelope.c: envelopes signed
with the fuzz target's key (bytes 1..32), built here from the layout in
src/scan/envelope.h (no ccloudpickle needed), plus edge cases.

    tests/fuzz/make_corpus_envelope.py [DIR]   (default tests/fuzz/corpus_envelope)
"""
import hashlib
import hmac
import os
import pickle
import sys

KEY = bytes(range(1, 33))
MAGIC = b"\xcfCPKSIG\n"


def seal(p, tool=b"0.1.0", ver=(3, 11, 2), magic=3495, proto=5, key=KEY):
    kid = hmac.new(key, b"ccloudpickle key id", hashlib.sha256).digest()[:8]
    h = 35 + len(tool)
    head = (MAGIC + (1).to_bytes(2, "big") + h.to_bytes(2, "big")
            + bytes([len(tool)]) + tool + bytes(ver) + magic.to_bytes(2, "big")
            + bytes([proto]) + kid + len(p).to_bytes(8, "big"))
    body = head + p
    return body + hmac.new(key, body, hashlib.sha256).digest()


def main():
    out = sys.argv[1] if len(sys.argv) > 1 else os.path.join(
        os.path.dirname(__file__), "corpus_envelope")
    os.makedirs(out, exist_ok=True)
    good = seal(pickle.dumps([1, "a", {2: 3.0}], protocol=5))
    seeds = {
        "valid-p5": good,
        "valid-p0": seal(pickle.dumps((1, 2), protocol=0), proto=0),
        "valid-p2-stop": seal(b".", proto=2),
        "valid-tool31": seal(b"K\x07.", tool=b"x" * 31, ver=(3, 13, 0),
                             magic=3571),
        "other-key": seal(b"K\x07.", key=bytes(range(2, 34))),
        "bad-mac": good[:-1] + bytes([good[-1] ^ 1]),
        "trailing": good + b"\0",
        "truncated-header": good[:20],
        "truncated-mac": good[:-5],
        "huge-length": good[:40] + b"\xff" * 8 + good[48:],
        "version-2": good[:8] + b"\x00\x02" + good[10:],
        "magic-only": MAGIC,
        "plain-pickle": pickle.dumps([1, 2], protocol=5),
    }
    for name, data in seeds.items():
        with open(os.path.join(out, name), "wb") as f:
            f.write(data)


if __name__ == "__main__":
    main()
