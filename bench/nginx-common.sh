# Sourced by bench/network.sh and bench/remote.sh: what their nginx instances share.

# Prints N free loopback ports (bound at once, so they differ; released before nginx binds them).
free_ports() {
    python3 -c '
import socket, sys
socks = [socket.socket() for _ in range(int(sys.argv[1]))]
for s in socks:
    s.bind(("127.0.0.1", 0))
print(*(s.getsockname()[1] for s in socks))' "$1"
}

# Prints the http-block lines every bench nginx has: temporary files under WORK/tmp, sendfile, and keep-alive
# connections that are never closed mid-run.
nginx_http_common() {
    cat <<CONF
    client_body_temp_path $1/tmp/body;
    proxy_temp_path $1/tmp/proxy;
    fastcgi_temp_path $1/tmp/fastcgi;
    uwsgi_temp_path $1/tmp/uwsgi;
    scgi_temp_path $1/tmp/scgi;
    sendfile on;
    keepalive_requests 1000000;
    keepalive_timeout 60s;
CONF
}
