#!/usr/bin/env sh
# Builds native/router.c as a shared library and the C unit tests, warning-free
# (-Wall -Wextra -Werror -pedantic), then runs the tests. Also builds and runs
# them once more under AddressSanitizer + UBSan when the compiler supports it.
# Usage: native/build.sh [OUT_DIR]   (default: native/build)
set -eu
here=$(cd "$(dirname "$0")" && pwd)
out=${1:-"$here/build"}
cc=${CC:-gcc}
mkdir -p "$out"
warn="-std=c99 -Wall -Wextra -Werror -pedantic -Wshadow -Wconversion -Wno-sign-conversion"

$cc $warn -O2 -shared -fPIC -o "$out/librouter.so" "$here/router.c"
$cc $warn -O2 -o "$out/test_router" "$here/test/test_router.c" "$here/router.c"
"$out/test_router"

if echo 'int main(void){return 0;}' | $cc -fsanitize=address,undefined -x c -o "$out/asan_probe" - 2>/dev/null; then
  $cc $warn -O1 -g -fsanitize=address,undefined -fno-sanitize-recover=all -fno-omit-frame-pointer \
    -o "$out/test_router_asan" "$here/test/test_router.c" "$here/router.c"
  ASAN_OPTIONS=detect_leaks=1 "$out/test_router_asan" >/dev/null
  echo "sanitizers: ok"
fi
