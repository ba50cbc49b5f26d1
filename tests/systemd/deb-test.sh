#!/usr/bin/env bash
# The Debian package under a real systemd (systemd-box), as an admin uses it: dpkg -i, systemctl
# start, a countdown followed by a member of group reqd, man reqd-client, journalctl -u reqd, then
# dpkg --purge. Needs root. Usage: tests/systemd/deb-test.sh BIN_DIR
# BIN_DIR holds reqd, reqd-client and generate-manual; the package is built from them.
set -euo pipefail
repo=$(cd "$(dirname "$0")/../.." && pwd)
bin=$(cd "${1:?usage: deb-test.sh BIN_DIR}" && pwd)
box_tool=${SYSTEMD_BOX:-$repo/tests/systemd/systemd-box}
name=reqd-deb-$$
failures=0
pass() { echo "ok   - $*"; }
fail() { echo "FAIL - $*"; failures=$((failures + 1)); }
check() { local what=$1; shift; if "$@"; then pass "$what"; else fail "$what"; fi; }

output=$(mktemp -d /tmp/reqd-deb-XXXXXX)
deb=$("$repo/scripts/package" --from "$bin" --manual-tool "$bin/generate-manual" --output "$output" --compression gzip)
"$box_tool" up --name "$name" >/dev/null
trap '"$box_tool" down --name "$name"; rm -rf "$output"' EXIT
box() { "$box_tool" run --name "$name" "$@"; }

# The box sees the host's /usr read-only; an overlay of the box's own lets dpkg write there.
box sh -c 'mkdir -p /run/usr/upper /run/usr/work &&
  mount -t overlay overlay -o lowerdir=/usr,upperdir=/run/usr/upper,workdir=/run/usr/work /usr'
box sh -c 'cat > /var/tmp/reqd.deb' <"$deb"

check "dpkg -i installs the package" box sh -c 'dpkg -i /var/tmp/reqd.deb >/dev/null'
check "its postinst made the user and group reqd" box getent passwd reqd
check "it put the configuration in place" box test -s /etc/reqd/reqd.toml
check "it enabled nothing" test "$(box systemctl is-enabled reqd 2>/dev/null || true)" = disabled
check "systemctl start reqd" box systemctl start reqd
check "reqd is active" box systemctl is-active --quiet reqd
check "it runs the packaged binary" test "$(box systemctl show reqd -p ExecMainPID --value)" -gt 0 -a \
  "$(box sh -c 'readlink /proc/$(systemctl show reqd -p MainPID --value)/exe')" = /usr/bin/reqd

box useradd --no-create-home --groups reqd alice
as_alice() { box setpriv --reuid=alice --regid=alice --init-groups "$@"; }
follow=$(as_alice reqd-client register-countdown --key deb --in 2s --follow 2>&1) && status=0 || status=$?
check "a member of group reqd follows a countdown to its end (exit $status)" test "$status" = 0
check "the follow ends with expired" grep -q "expired" <<<"$follow"
check "man reqd-client shows the page" sh -c "'$box_tool' run --name '$name' env MANWIDTH=80 man -P cat reqd-client | grep -q register-countdown"
check "man reqd.toml shows the settings" sh -c "'$box_tool' run --name '$name' env MANWIDTH=80 man -P cat reqd.toml | grep -q jobs.retention"
check "journalctl -u reqd has the start" sh -c "'$box_tool' run --name '$name' journalctl -u reqd --no-pager | grep -q 'reqd ready'"

check "dpkg --purge removes it" box sh -c 'dpkg --purge reqd >/dev/null'
check "the binaries are gone" box test ! -e /usr/bin/reqd -a ! -e /usr/bin/reqd-client
check "the configuration is gone" box test ! -e /etc/reqd/reqd.toml
check "the service is stopped" sh -c "! '$box_tool' run --name '$name' systemctl is-active --quiet reqd"
check "the unit is gone" sh -c "! '$box_tool' run --name '$name' systemctl cat reqd >/dev/null 2>&1"
check "the jobs stay in /var/lib/reqd" box test -e /var/lib/reqd/reqd.sqlite3

if ((failures)); then
  echo "deb-test: $failures failure(s)"
  exit 1
fi
echo "deb-test: OK"
