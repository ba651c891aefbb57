#!/usr/bin/env bash
# Installs the build into a scratch prefix, then builds and runs a program
# against it with pkg-config alone: headers, shared library and wqe.pc.
set -euo pipefail
build=$1
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
cmake --install "$build" --prefix "$dir/prefix" >/dev/null
cat > "$dir/use.c" <<'C'
#include <wqe/wqe.h>
#include <stdio.h>
#include <string.h>

int main(void)
{
	struct wqe_context *c = wqe_open_context(NULL);
	struct wqe_qp_cap cap = {16, 16, 1, 1, 0};
	uint32_t bytes, blocks;

	if (!c || wqe_calc_sq(WQE_FORMAT_MLX5, WQE_QPT_RC, &cap, &bytes, &blocks))
		return 1;
	printf("%s %u\n", wqe_format_str(WQE_FORMAT_MLX5), cap.max_inline_data);
	return wqe_close_context(c);
}
C
export PKG_CONFIG_PATH="$dir/prefix/lib/pkgconfig"
cc -std=c11 -Wall -Werror "$dir/use.c" $(pkg-config --cflags --libs wqe) \
	-Wl,-rpath,"$dir/prefix/lib" -o "$dir/use"
out=$("$dir/use")
[ "$out" = "mlx5 28" ] || { echo "unexpected output: $out"; exit 1; }
test -x "$dir/prefix/bin/wqe"
"$dir/prefix/bin/wqe" version >/dev/null
# --cflags names wqe's headers only, not its libraries' (libpcap's dbus)
cflags=$(pkg-config --cflags wqe | sed "s/ *$//")
[ "$cflags" = "-I$dir/prefix/lib/pkgconfig/../../include" ] ||
	{ echo "pkg-config --cflags wqe: $cflags"; exit 1; }
# the drop-in, in its own folder, found by the installed wqe exec
test -f "$dir/prefix/lib/wqe/libibverbs.so.1"
test -f "$dir/prefix/lib/wqe/libmlx5.so.1"
test ! -e "$dir/prefix/lib/libibverbs.so.1"
out=$("$dir/prefix/bin/wqe" exec --local 127.0.0.1 -- ibv_devices)
echo "$out" | grep -q "wqe0" || { echo "installed wqe exec ibv_devices: $out"; exit 1; }
echo "3 passed, 0 failed"
