#!/bin/sh
# Print the path of a Python >= 3.12 interpreter, preferring python3.12.
# pyenv shims answer `python3.12` even when that version is not selected, so each
# candidate is run once to check that it really works.
ok() { "$1" -c 'import sys; sys.exit(0 if sys.version_info >= (3, 12) else 1)' >/dev/null 2>&1; }
for c in python3.12 python3.13 python3.14 python3; do
    if command -v "$c" >/dev/null 2>&1 && ok "$c"; then command -v "$c"; exit 0; fi
done
if command -v pyenv >/dev/null 2>&1; then
    for p in "$(pyenv root)"/versions/3.1[2-9]*/bin/python3; do
        if [ -x "$p" ] && ok "$p"; then echo "$p"; exit 0; fi
    done
fi
echo "no Python >= 3.12 found; install python3.12 (the FEniCSx wheel needs it)" >&2
exit 1
