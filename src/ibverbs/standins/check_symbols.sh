#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
#
# Checks the stand-in libmlx5.so.1 and libefa.so.1 and the drop-in
# librdmacm.so.1 (which needs the drop-in libibverbs.so.1 besides libc) in the
# directory $1 against Debian's real libraries, the oracle: the same defined
# dynamic symbols (name@version, type, and size for data objects), the same
# version nodes chained the same way, the right SONAME, no undefined symbol
# outside libc; then probe.c's calls, and Debian's ib_write_bw resolving every
# symbol it takes from the three with the stand-ins on LD_LIBRARY_PATH.
# A missing oracle fails, never skips. Exit 0 when all hold, 1 otherwise.
#
# Environment: WQE_REAL_LIBDIR (default /usr/lib/x86_64-linux-gnu), CC (cc).
set -euo pipefail

if [[ $# -ne 1 || ! -d $1 ]]; then
	echo "usage: $0 STANDIN_DIR" >&2
	exit 2
fi
dir=$(cd "$1" && pwd)
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
real_dir=${WQE_REAL_LIBDIR:-/usr/lib/x86_64-linux-gnu}
cc=${CC:-cc}
libs=(libmlx5.so.1 libefa.so.1 librdmacm.so.1)

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail=0

err() {
	echo "check_symbols: $*" >&2
	fail=1
}

for tool in readelf objdump ldd "$cc"; do
	command -v "$tool" >/dev/null || { echo "check_symbols: $tool not found" >&2; exit 1; }
done

# Defined dynamic symbols, one a line: "name@@VER TYPE" (name@VER for a
# non-default version; a version node's own symbol is its bare name), with
# the size appended for data objects, whose size is ABI.
defined_syms() {
	readelf --dyn-syms -W "$1" | awk '
		$1 ~ /^[0-9]+:$/ && $7 != "UND" && $5 != "LOCAL" {
			key = $8 " " $4
			if ($4 == "OBJECT" || $4 == "TLS") key = key " " $3
			print key
		}' | LC_ALL=C sort -u
}

# Version definitions: "node NAME" for each (BASE names the SONAME) and
# "NAME parent PARENT" for each link of the chain.
verdefs() {
	readelf -V -W "$1" | awk '
		/^Version definition section/ { on = 1; next }
		/^Version (needs|symbols) section/ { on = 0 }
		on && /Name:/ { name = $NF; print (/Flags: BASE/ ? "base " : "node ") name }
		on && /Parent 1:/ { print name " parent " $NF }' | LC_ALL=C sort -u
}

soname() {
	readelf -d "$1" | sed -n 's/.*(SONAME).*\[\(.*\)\]$/\1/p'
}

# Compares two sorted lists, naming each line only one side has.
compare() {
	local what=$1 real=$2 ours=$3 lib=$4 d
	d=$(LC_ALL=C comm -3 "$real" "$ours" | sed -e 's/^\t/  only in the stand-in: /' \
		-e '/^  only in the stand-in: /!s/^/  only in Debian'\''s: /')
	if [[ -n $d ]]; then
		err "$lib: $what differ from Debian's:"
		echo "$d" >&2
	fi
}

for lib in "${libs[@]}"; do
	real=$real_dir/$lib
	ours=$dir/$lib
	if [[ ! -e $real ]]; then
		err "$lib: the oracle $real is missing (install ibverbs-providers and librdmacm1)"
		continue
	fi
	if [[ ! -e $ours ]]; then
		err "$lib: no stand-in at $ours"
		continue
	fi
	if [[ $(readlink -f "$real") == "$(readlink -f "$ours")" ]]; then
		err "$lib: the stand-in is the oracle itself ($real)"
		continue
	fi
	b=$tmp/$lib
	defined_syms "$real" >"$b.real.syms"
	defined_syms "$ours" >"$b.ours.syms"
	if [[ ! -s $b.real.syms ]]; then
		err "$lib: the oracle $real exports nothing"
		continue
	fi
	compare "defined dynamic symbols" "$b.real.syms" "$b.ours.syms" "$lib"
	verdefs "$real" >"$b.real.vd"
	verdefs "$ours" >"$b.ours.vd"
	compare "version nodes" "$b.real.vd" "$b.ours.vd" "$lib"

	so=$(soname "$ours")
	[[ $so == "$lib" ]] || err "$lib: SONAME is '$so'"

	# Undefined: only libc's (versioned GLIBC_*), and the weak hooks every
	# crtbegin.o refers to.
	# librdmacm, wqe's drop-in rather than a stand-in, takes the verbs
	# (and its GSI QP, at WQE_PRIVATE_1) from the drop-in libibverbs; in a
	# sanitized build it is instrumented like the drop-in libibverbs, so
	# the runtime is among its needs and binds libc's calls unversioned.
	san=
	[[ $lib == librdmacm.so.1 ]] &&
		readelf -d "$ours" | grep -qE 'NEEDED.*\[lib(asan|ubsan|tsan)\.so' && san=1
	und=$(objdump -T "$ours" | awk -v lib="$lib" -v san="$san" '$0 ~ /\*UND\*/ {
		if (san) next
		name = $NF; ver = $(NF - 1)
		if (ver ~ /^\(?GLIBC_[0-9.]+\)?$/) next
		if (lib == "librdmacm.so.1" && ver ~ /^\(?(IBVERBS_[0-9.]+|WQE_PRIVATE_1)\)?$/) next
		if ($2 == "w" && (name == "__gmon_start__" || name ~ /^_ITM_(de)?registerTMCloneTable$/)) next
		print "  " ver " " name
	}')
	if [[ -n $und ]]; then
		err "$lib: undefined symbols outside libc:"
		echo "$und" >&2
	fi
	needed=$(readelf -d "$ours" | sed -n 's/.*(NEEDED).*\[\(.*\)\]$/\1/p' | grep -vx 'libc.so.6' || true)
	[[ $lib == librdmacm.so.1 ]] && needed=$(grep -vx 'libibverbs.so.1' <<<"$needed" || true)
	[[ -n $san ]] && needed=$(grep -vE '^lib(asan|ubsan|tsan)\.so' <<<"$needed" || true)
	[[ -z $needed ]] || err "$lib: needs more than libc: $needed"
done

# The probe: the documented failures, called through the stand-ins.
if ! "$cc" -std=c11 -D_POSIX_C_SOURCE=200809L -Wall -Wextra -Werror -O1 \
	-o "$tmp/probe" "$here/probe.c" "$dir/libmlx5.so.1" "$dir/libefa.so.1" \
	"$dir/librdmacm.so.1" -ldl 2>"$tmp/probe.cc.log"; then
	err "probe.c does not build:"
	cat "$tmp/probe.cc.log" >&2
else
	loaded=$(LD_LIBRARY_PATH=$dir ldd "$tmp/probe")
	for lib in "${libs[@]}"; do
		grep -qF "$lib => $dir/$lib " <<<"$loaded" || err "probe: $lib is not taken from $dir"
	done
	rc=0
	# a sanitized build's runtime first (WQE_TEST_PRELOAD, as the exec tests)
	pre=()
	[[ -n ${WQE_TEST_PRELOAD:-} ]] && pre=(env LD_PRELOAD="$WQE_TEST_PRELOAD" ASAN_OPTIONS=detect_leaks=0)
	out=$(LD_LIBRARY_PATH=$dir LD_BIND_NOW=1 "${pre[@]}" "$tmp/probe" 2>&1) || rc=$?
	if [[ $rc -ne 0 ]]; then
		err "probe failed (exit $rc)${out:+:}"
		[[ -z $out ]] || echo "$out" >&2
	elif [[ -n $out ]]; then
		err "probe printed: $out"
	fi
	# rdma_event_str()'s strings, the stand-in's against Debian's.
	if LD_LIBRARY_PATH=$dir "${pre[@]}" "$tmp/probe" --event-str >"$tmp/ev.ours" &&
		LD_LIBRARY_PATH=$real_dir "$tmp/probe" --event-str >"$tmp/ev.real"; then
		diff -u "$tmp/ev.real" "$tmp/ev.ours" >"$tmp/ev.diff" ||
			{ err "rdma_event_str differs from Debian's:"; cat "$tmp/ev.diff" >&2; }
	else
		err "probe --event-str failed"
	fi
fi

# Debian's perftest: every symbol ib_write_bw takes from the three resolves
# in the stand-ins, with BIND_NOW (ldd -r lists each one that does not).
if ! bw=$(command -v ib_write_bw); then
	err "ib_write_bw, the oracle program, is missing (install perftest)"
else
	vendor_names=$(cat "$tmp"/lib*.so.1.real.syms 2>/dev/null | awk '{ sub(/@.*/, "", $1); print $1 }')
	if ! res=$(LD_BIND_NOW=1 LD_LIBRARY_PATH=$dir ldd -r "$bw" 2>&1); then
		err "ldd -r $bw failed:"
		echo "$res" >&2
	fi
	for lib in "${libs[@]}"; do
		grep -qF "$lib => $dir/$lib " <<<"$res" || err "ib_write_bw: $lib is not taken from $dir"
	done
	while IFS= read -r line; do
		[[ -n $line ]] || continue
		name=$(sed -n 's/^undefined symbol: \([^, 	]*\).*/\1/p' <<<"$line")
		if grep -Eq ', version (MLX5|EFA|RDMACM)_' <<<"$line" || grep -qxF -- "$name" <<<"$vendor_names"; then
			err "ib_write_bw: $line"
		else
			echo "check_symbols: note (not a stand-in's): $line" >&2
		fi
	done < <(grep '^undefined symbol:' <<<"$res" || true)
fi

if [[ $fail -ne 0 ]]; then
	echo "check_symbols: FAILED" >&2
	exit 1
fi
echo "check_symbols: the libmlx5 and libefa stand-ins and the librdmacm drop-in in $dir match Debian's"
