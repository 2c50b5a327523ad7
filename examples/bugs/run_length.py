"""Run-length encoded strings."""


def run_length_decode(encoded):
    """Expand "3a2b" to "aaabb": each count is followed by the character it repeats."""
    out = []
    i = 0
    while i < len(encoded):
        count = int(encoded[i])
        out.append(encoded[i + 1] * count)
        i += 2
    return "".join(out)
