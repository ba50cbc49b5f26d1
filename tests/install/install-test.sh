#!/usr/bin/env bash
# The install and uninstall scripts into a staging root: every file in its place, the unit pointing
# at the installed binary, man pages that render, completions that load, an edited configuration
# kept across a second install and the uninstall, the state directory left alone.
# Usage: tests/install/install-test.sh BIN_DIR   (BIN_DIR holds reqd, reqd-client and generate-manual)
set -euo pipefail
cd "$(dirname "$0")/../.."
bin=$(cd "$1" && pwd)
root=$(mktemp -d /tmp/reqd-install-XXXXXX)
trap 'rm -rf "$root" "$root.2" "$root.3" "$root.log" "$root.err"' EXIT
fail() { echo "install-test: FAIL: $*" >&2; exit 1; }

# A directory that was there before the install must be there after the uninstall.
mkdir -p "$root/usr/share/man"
scripts/install --prefix /usr --destdir "$root" --from "$bin" --manual-tool "$bin/generate-manual" > "$root.log"
for file in /usr/bin/reqd /usr/bin/reqd-client /usr/lib/systemd/system/reqd.service /usr/lib/systemd/system/reqd.socket \
    /usr/lib/sysusers.d/reqd.conf /usr/lib/tmpfiles.d/reqd.conf /etc/reqd/reqd.toml /usr/share/doc/reqd/README.md \
    /usr/share/man/man8/reqd.8 /usr/share/man/man1/reqd-client.1 /usr/share/man/man5/reqd.toml.5 \
    /usr/share/bash-completion/completions/reqd-client /usr/share/zsh/site-functions/_reqd-client \
    /usr/share/fish/vendor_completions.d/reqd-client.fish; do
    [[ -s $root$file ]] || fail "$file is missing or empty"
done
[[ -x $root/usr/bin/reqd ]] || fail "reqd is not executable"
grep -q '^ExecStart=/usr/bin/reqd --config /etc/reqd/reqd.toml$' "$root/usr/lib/systemd/system/reqd.service" \
    || fail "the unit does not start the installed binary"
grep -q '^Documentation=man:reqd(8) man:reqd.toml(5) file:/usr/share/doc/reqd/README.md$' "$root/usr/lib/systemd/system/reqd.service" \
    || fail "the unit's Documentation= does not name the installed README"
grep -q '/usr/local' "$root/usr/lib/systemd/system/reqd.service" && fail "the unit still names /usr/local"
for page in man8/reqd.8 man1/reqd-client.1 man5/reqd.toml.5; do
    text=$(MANWIDTH=100 man -l "$root/usr/share/man/$page" 2> "$root.err") || fail "$page does not render"
    [[ $text == *NAME* && ! -s $root.err ]] || fail "$page renders badly: $(cat "$root.err") ${text:0:200}"
done
MANWIDTH=100 man -l "$root/usr/share/man/man5/reqd.toml.5" | grep -q 'jobs.retention = ‘"1h"’' \
    || fail "reqd.toml(5) lacks jobs.retention with its default"
MANWIDTH=100 man -l "$root/usr/share/man/man1/reqd-client.1" | grep -qF -e "--until '/state == \"done\"' --wait" \
    || fail "reqd-client(1) lacks its examples as written"
bash -c "source '$root/usr/share/bash-completion/completions/reqd-client' && complete -p reqd-client" >/dev/null \
    || fail "the bash completion does not load"
grep -q 'register-countdown' "$root/usr/share/fish/vendor_completions.d/reqd-client.fish" || fail "fish completion lacks commands"
files=$(grep -vc '/$' "$root/usr/share/doc/reqd/MANIFEST")
[[ $files == 18 ]] || fail "the manifest lists $files files, not 18"

# An edited configuration survives a second install and the uninstall; the state directory too.
echo '# edited' >> "$root/etc/reqd/reqd.toml"
mkdir -p "$root/var/lib/reqd" && echo jobs > "$root/var/lib/reqd/reqd.sqlite3"
scripts/install --prefix /usr --destdir "$root" --from "$bin" --manual-tool "$bin/generate-manual" > /dev/null 2> "$root.err"
grep -q 'kept the edited /etc/reqd/reqd.toml' "$root.err" || fail "a second install did not say it kept the edited file"
tail -n1 "$root/etc/reqd/reqd.toml" | grep -q '# edited' || fail "a second install overwrote the edited configuration"
scripts/uninstall --prefix /usr --destdir "$root" > /dev/null 2> "$root.err"
left=$(cd "$root" && find . -type f | sort)
[[ $left == $'./etc/reqd/reqd.toml\n./var/lib/reqd/reqd.sqlite3' ]] || fail "uninstall left: $left"
dirs=$(cd "$root" && find usr -type d | sort | paste -sd' ')
[[ $dirs == "usr usr/share usr/share/man" ]] || fail "uninstall left other directories than those it found: $dirs"

# An unedited configuration goes with the rest; paths may be given relative to the caller.
(cd "$(dirname "$root")" && "$OLDPWD/scripts/install" --prefix /usr --destdir "$(basename "$root").2" --from "$bin" \
    --manual-tool "$bin/generate-manual" > /dev/null)
[[ -x $root.2/usr/bin/reqd ]] || fail "a relative --destdir was not taken from the caller's directory"
scripts/uninstall --prefix /usr --destdir "$root.2" > /dev/null
scripts/install --prefix '/opt/my prefix' --destdir "$root.3" --from "$bin" > /dev/null 2>&1 && fail "a prefix with a space was taken"
[[ -z $(find "$root.2" -type f) ]] || fail "uninstall left: $(find "$root.2" -type f)"
echo "install-test: OK"
