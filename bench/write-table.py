#!/usr/bin/env python3
"""Puts a table read from stdin into BENCHMARKS.md between the markers of NAME.

Usage: bench/write-table.py NAME "SECTION TITLE" < table
The block goes between <!-- NAME begin --> and <!-- NAME end -->; when they are missing, a new
section with SECTION TITLE is added at the end.
"""
import re
import sys

name, title = sys.argv[1], sys.argv[2]
table = sys.stdin.read().strip()
text = open("BENCHMARKS.md").read()
begin, end = f"<!-- {name} begin -->", f"<!-- {name} end -->"
block = f"{begin}\n{table}\n{end}"
if begin in text:
    text = re.sub(re.escape(begin) + ".*?" + re.escape(end), lambda m: block, text, flags=re.S)
else:
    text = text.rstrip() + f"\n\n## {title}\n\n" + block + "\n"
open("BENCHMARKS.md", "w").write(text)
