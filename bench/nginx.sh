# Shared set-up of the benchmarks that drive HTTP: sourced, not run.
#
# bench_setup COMMAND... installs the Debian packages that provide the missing commands (as root),
# builds reqd and reqd-bench in release, and starts nginx on 127.0.0.1:18089 serving a small JSON
# file. It sets $bin (the release binaries), $url (the file's URL) and $work, and stops nginx and
# removes $work when the script exits.

bench_setup() {
    scripts/setup
    local missing=()
    for command in "$@"; do
        command -v "$command" >/dev/null || missing+=("$command")
    done
    if ((${#missing[@]})); then
        [ "$(id -u)" = 0 ] || { echo "$0: ${missing[*]} missing; install them as root" >&2; exit 1; }
        local packages=()
        for command in "${missing[@]}"; do
            case "$command" in
                ab) packages+=(apache2-utils) ;;
                redis-benchmark | redis-cli) packages+=(redis-tools) ;;
                *) packages+=("$command") ;;
            esac
        done
        DEBIAN_FRONTEND=noninteractive apt-get install -y -q "${packages[@]}" >/dev/null
    fi
    swift build -c release --product reqd
    swift build -c release --product reqd-bench
    bin=$(swift build -c release --show-bin-path)

    local port=18089
    work=$(mktemp -d /tmp/reqd-bench-nginx-XXXXXX)
    chmod 755 "$work"
    mkdir -p "$work/www" "$work/logs"
    printf '{"state":"running","progress":42,"id":"job-7"}\n' > "$work/www/job.json"
    chmod -R a+rX "$work/www"
    cat > "$work/nginx.conf" <<CONF
worker_processes auto;
pid $work/nginx.pid;
error_log $work/logs/error.log warn;
events { worker_connections 16384; }
http {
    access_log off;
    keepalive_requests 10000000;
    keepalive_timeout 120s;
    client_body_temp_path $work/tmp;
    proxy_temp_path $work/tmp;
    fastcgi_temp_path $work/tmp;
    uwsgi_temp_path $work/tmp;
    scgi_temp_path $work/tmp;
    server {
        listen 127.0.0.1:$port;
        root $work/www;
        default_type application/json;
    }
}
CONF
    nginx -p "$work" -c "$work/nginx.conf"
    trap 'nginx -p "$work" -c "$work/nginx.conf" -s stop 2>/dev/null || true; rm -rf "$work"' EXIT
    url="http://127.0.0.1:$port/job.json"
    curl -fsS "$url" >/dev/null
}

bench_machine() {
    echo "machine: $(nproc) cores, $(awk '/MemTotal/ {printf "%.0f GiB", $2/1048576}' /proc/meminfo), $(uname -r), $(swift --version 2>&1 | head -n1), $(nginx -v 2>&1)"
    echo "date: $(date -u +%Y-%m-%dT%H:%MZ)"
}
