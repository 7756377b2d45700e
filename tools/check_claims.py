#!/usr/bin/env python3
"""Every figure README.md cites from bench/results/ is in the file it cites.

    check_claims.py ROOT [--readme PATH]

README is read block by block (blank lines apart; fenced code is skipped).
A block cites the files or folders under bench/results/ that it names; one
that names none, those its section heading names (bench/results/ as a whole
is not a citation: a figure's file must be named). In each citing block, every
figure is looked up in the cited files: numbers with a unit (GB/s, ms, us, s,
GB, and ratios written 1.03x), every end of a range or pair (0.96-1.00, 4358 and 4214 GB/s, 130 / 28 ms), and bare
ratios (0.95). A figure is held when a number in a cited file rounds to it at
the figure's precision (0.978 holds "0.98", 0.9497 holds "0.95" but not
"0.950"). Code spans (`...`), exponents (2^28, 10^9, 1e7), dates and versions
are not figures. Also every file under bench/results/ must be listed in
bench/results/README.md. Exit 1, naming each figure not found and the files
searched, and each file not listed.
"""
import os
import re
import sys
from decimal import Decimal, ROUND_HALF_EVEN, ROUND_HALF_UP

TEXT = (".md", ".txt", ".log", ".csv", ".json")  # a folder's results; plots hold no figures
CITE = re.compile(r"bench/results/[\w./-]*")
NUMBER = r"\d+(?:\.\d+)?"
# A number and what follows it: a unit, or a range's other end.
FIGURE = re.compile(r"(?<![\w.^/-])(" + NUMBER + r")(?:\s*(?:-|–|to|and|/)\s*(" + NUMBER + r"))?\s*(GB/s|ms|us|µs|s|GB|x)?(?![\w^.]*\^)")
NOT_FIGURES = [
    re.compile(r"`[^`]*`"),                          # code
    re.compile(r"\b\d+\^\d+(?:\s*\+\s*\d+\^\d+)?"),  # 2^28, 2^31+2^24
    re.compile(r"\b\d+(?:\.\d+)?e\d+\b"),            # 1e7
    re.compile(r"\b\d{4}-\d{2}-\d{2}\b"),            # dates
    re.compile(r"\b(?:CUDA|CuPy|PyTorch|numexpr|NumPy|driver|Debian|Ubuntu|sm_|issue|cujit)\s*\d+(?:\.\d+)*"),
    re.compile(r"\(\w+,\s*\d+\)|\(\d+,\s*\w+\)"),    # shapes like (r,1)
    re.compile(r"\b\d+x\d+\b"),                      # 64x64 tiles
    re.compile(r"\b\d+-(?:bit|byte|wide|D|core|thread)s?\b"),  # 16-byte, 8-wide, 3-D, 2-core
    re.compile(r"\[[^\]]*\]\([^)]*\)"),              # links
]


def blocks(text):
    """(heading citations, block text) for each block outside fenced code."""
    out, cur, heading_cites, in_code = [], [], [], False
    for line in text.splitlines():
        if line.startswith("```"):
            in_code = not in_code
            continue
        if in_code:
            continue
        if line.startswith("#"):
            if cur:
                out.append((heading_cites, "\n".join(cur)))
                cur = []
            heading_cites = CITE.findall(line)
            continue
        if not line.strip():
            if cur:
                out.append((heading_cites, "\n".join(cur)))
                cur = []
            continue
        cur.append(line)
    if cur:
        out.append((heading_cites, "\n".join(cur)))
    return out


def cited_files(root, cites):
    files = []
    for c in cites:
        if c.rstrip("/.,;:)") == "bench/results":
            continue  # the folder as a whole is no citation: a figure's file must be named
        path = os.path.join(root, c.rstrip("/.,;:)"))
        if os.path.isdir(path):
            for d, _, names in os.walk(path):
                files += [os.path.join(d, n) for n in sorted(names) if n.endswith(TEXT)]
        elif os.path.isfile(path):
            files.append(path)
        else:
            raise FileNotFoundError(c)
    return files


def numbers_in(path):
    with open(path, errors="replace") as f:
        return {Decimal(m) for m in re.findall(NUMBER, f.read())}


def held(figure, numbers):
    want = Decimal(figure)
    q = Decimal(1).scaleb(want.as_tuple().exponent)
    return any(n.quantize(q, rounding=r) == want for n in numbers for r in (ROUND_HALF_EVEN, ROUND_HALF_UP)
               if abs(n - want) <= q)


def figures(block):
    text = block
    for pat in NOT_FIGURES:
        text = pat.sub(" ", text)
    found = []
    for m in FIGURE.finditer(text):
        a, b, unit = m.group(1), m.group(2), m.group(3)
        ends = [a] + ([b] if b else [])
        for e in ends:
            decimal = "." in e
            # A bare integer is a count (15 programs, 3 x 60 s is counted apart), not a figure;
            # integers count with a unit other than x.
            if not decimal and (unit is None or unit == "x"):
                continue
            found.append((e, m.group(0).strip()))
    return found


def unlisted_results(root):
    """Files under bench/results/ that its README.md does not name (a listed
    folder covers its files; a listed x.md covers its plot x.png)."""
    base = os.path.join(root, "bench", "results")
    with open(os.path.join(base, "README.md")) as f:
        index = f.read()
    missing = []
    for d, _, names in os.walk(base):
        for n in sorted(names):
            rel = os.path.relpath(os.path.join(d, n), base)
            top = rel.split(os.sep)[0]
            if rel == "README.md" or (top != rel and f"`{top}/`" in index) or f"`{rel}`" in index:
                continue
            if rel.endswith(".png") and f"`{rel[:-4]}.md`" in index:
                continue
            missing.append(rel)
    return missing


def main(argv):
    root = argv[1] if len(argv) > 1 else "."
    readme = os.path.join(root, "README.md")
    if "--readme" in argv:
        readme = argv[argv.index("--readme") + 1]
    with open(readme) as f:
        text = f.read()
    missing, checked = [], 0
    for heading_cites, block in blocks(text):
        own = [c for c in CITE.findall(block) if c.rstrip("/.,;:)") != "bench/results"]
        cites = own or [c for c in heading_cites if c.rstrip("/.,;:)") != "bench/results"]
        if not cites:
            continue
        try:
            files = cited_files(root, cites)
        except FileNotFoundError as e:
            missing.append(f"cites {e.args[0]}, which does not exist")
            continue
        numbers = set()
        for p in files:
            numbers |= numbers_in(p)
        for fig, context in figures(block):
            checked += 1
            if not held(fig, numbers):
                names = ", ".join(os.path.relpath(p, root) for p in files)
                missing.append(f"'{fig}' (in \"{context}\") is in none of {names}")
    if "--readme" not in argv:
        for rel in unlisted_results(root):
            missing.append(f"bench/results/{rel} is not listed in bench/results/README.md (GPU, date, command)")
    for m in missing:
        print(f"{os.path.basename(readme)}: {m}")
    print(f"check_claims: {checked} figures checked, {len(missing)} not held by their files")
    return 1 if missing else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
