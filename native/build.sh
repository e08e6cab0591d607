#!/usr/bin/env sh
# Builds native/router.c as a shared library and the C unit tests, warning-free
# (-std=c99 -Wall -Wextra -Werror -pedantic -Wshadow -Wconversion), then runs the
# tests, and runs them again under AddressSanitizer + UBSan with leak detection
# when the compiler supports it.
#
# Usage: native/build.sh [test|build]
#   test  (default) build and run the tests
#   build           build only
# Environment: CC (default gcc), NATIVE_OUT (default $TMPDIR/webfw-native-build,
# outside the work tree).
set -eu
mode=${1:-test}
case "$mode" in
  test | build) ;;
  *)
    echo "usage: $0 [test|build]" >&2
    exit 2
    ;;
esac
here=$(cd "$(dirname "$0")" && pwd)
out=${NATIVE_OUT:-"${TMPDIR:-/tmp}/webfw-native-build"}
cc=${CC:-gcc}
mkdir -p "$out"
warn="-std=c99 -Wall -Wextra -Werror -pedantic -Wshadow -Wconversion -Wno-sign-conversion"

$cc $warn -O2 -shared -fPIC -o "$out/librouter.so" "$here/router.c"
$cc $warn -O2 -o "$out/test_router" "$here/test/test_router.c" "$here/router.c"
sanitizers=no
if echo 'int main(void){return 0;}' | $cc -fsanitize=address,undefined -x c -o "$out/asan_probe" - 2>/dev/null; then
  rm -f "$out/asan_probe"
  sanitizers=yes
  $cc $warn -O1 -g -fsanitize=address,undefined -fno-sanitize-recover=all -fno-omit-frame-pointer \
    -o "$out/test_router_asan" "$here/test/test_router.c" "$here/router.c"
fi
echo "built in $out"
[ "$mode" = build ] && exit 0

"$out/test_router"
if [ "$sanitizers" = yes ]; then
  ASAN_OPTIONS=detect_leaks=1 "$out/test_router_asan" >/dev/null
  echo "sanitizers (ASan + UBSan + leaks): ok"
fi
