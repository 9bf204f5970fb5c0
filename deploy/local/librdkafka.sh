# Sourced by every script that starts push-worker or runs the tests: puts the librdkafka
# to run on first on LD_LIBRARY_PATH (docs/kafka.md, "Which librdkafka"). The binary is built against Debian's
# librdkafka 2.0.2 headers; the C ABI is stable in 2.x, so the dynamic linker alone picks the library.
#   PUSH_LIBRDKAFKA=current (the default): the pinned confluent-kafka wheel's (2.16), .venv/librdkafka, made by setup.sh
#   PUSH_LIBRDKAFKA=debian: Debian's 2.0.2 (what a build links against)
librdkafka_current="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)/.venv/librdkafka"
LD_LIBRARY_PATH=$(tr ':' '\n' <<<"${LD_LIBRARY_PATH:-}" | grep -vxF -e "$librdkafka_current" -e '' | paste -sd: || true)
case "${PUSH_LIBRDKAFKA:-current}" in
    current)
        [ -e "$librdkafka_current/librdkafka.so.1" ] || { echo "no $librdkafka_current: run deploy/local/setup.sh" >&2; exit 1; }
        LD_LIBRARY_PATH="$librdkafka_current${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}" ;;
    debian) ;;
    *) echo "PUSH_LIBRDKAFKA must be 'current' or 'debian', not '$PUSH_LIBRDKAFKA'" >&2; exit 2 ;;
esac
export PUSH_LIBRDKAFKA=${PUSH_LIBRDKAFKA:-current} LD_LIBRARY_PATH
