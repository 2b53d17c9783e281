#!/usr/bin/env bash
# Install what revline needs on Debian, build it, and run it or its tests.
#
#   share/setup.sh --run [DIR]   install, build, open revline on the repository
#                                at DIR (default: here), or on a demo repository
#                                when DIR is not inside one
#   share/setup.sh --test        install (and the MCP SDK the tests drive revline
#                                mcp with), build, run the whole test suite
#   share/setup.sh --deps        only install the Debian packages
#   share/setup.sh --build       install and build
#
# Safe to run again: installed packages are skipped, the SDK is installed
# again only when its pinned lock file changed, and the build is
# incremental. As root it uses apt-get directly, otherwise sudo.
set -euo pipefail

src=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
build=${REVLINE_BUILD_DIR:-$src/build}

# universal-ctags: the repository index's definitions (revline runs it; its tests run the real one).
packages=(
	build-essential cmake pkg-config git ca-certificates
	libncurses-dev libgit2-dev libcurl4-openssl-dev libjansson-dev
	libsqlite3-dev libyaml-dev libpcre2-dev libcmocka-dev libssl-dev libxxhash-dev libpq-dev
	tmux python3 python3-jsonschema
	universal-ctags
)
# The linters whose output the tests read and run (ruff is not in Debian 12), the
# shells whose completion scripts the tests parse, and a PostgreSQL server
# (initdb, pg_ctl, psql) that the store's tests start in a temporary directory.
test_packages=(flake8 mypy bandit shellcheck cppcheck zsh fish postgresql)
# node and npm for the official MCP SDK the tests drive `revline mcp` with
# (from Debian when the machine has none; a node installed otherwise is kept).
command -v node >/dev/null || test_packages+=(nodejs)
command -v npm >/dev/null || test_packages+=(npm)

say() { printf 'revline setup: %s\n' "$*" >&2; }

install_deps() {
	local missing=() p
	for p in "${packages[@]}"; do
		dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed' ||
			missing+=("$p")
	done
	[ ${#missing[@]} -eq 0 ] && return 0
	if ! command -v apt-get >/dev/null; then
		say "apt-get not found: install these packages by hand: ${missing[*]}"
		exit 1
	fi
	local sudo=()
	if [ "$(id -u)" -ne 0 ]; then
		if ! command -v sudo >/dev/null; then
			say "not root and no sudo: as root, run: apt-get install ${missing[*]}"
			exit 1
		fi
		sudo=(sudo)
	fi
	say "installing ${missing[*]}"
	"${sudo[@]}" env DEBIAN_FRONTEND=noninteractive apt-get update -qq
	"${sudo[@]}" env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq \
		--no-install-recommends "${missing[@]}" >/dev/null
}

# The MCP TypeScript SDK (@modelcontextprotocol/sdk) at the version pinned in
# tests/mcp_sdk/package.json and package-lock.json, installed with npm ci into
# $build/mcp-sdk, where tests/mcp_sdk/t_sdk.sh finds it (the test never
# fetches it). Done again only when the lock file changed.
install_mcp_sdk() {
	local dir=$build/mcp-sdk lock=$src/tests/mcp_sdk/package-lock.json
	if [ -d "$dir/node_modules/@modelcontextprotocol/sdk" ] && cmp -s "$lock" "$dir/installed.lock"; then
		return 0
	fi
	say "installing the MCP SDK the tests drive revline mcp with into $dir (npm ci)"
	mkdir -p "$dir"
	rm -f "$dir/installed.lock"
	cp "$src/tests/mcp_sdk/package.json" "$lock" "$dir/"
	if ! (cd "$dir" && npm ci --no-audit --no-fund --loglevel=error >/dev/null); then
		say "npm ci failed in $dir (is the npm registry reachable?): the MCP SDK test needs it"
		exit 1
	fi
	cp "$lock" "$dir/installed.lock"
}

do_build() {
	cmake -S "$src" -B "$build" -DCMAKE_BUILD_TYPE=RelWithDebInfo >/dev/null
	cmake --build "$build" -j"$(nproc)"
}

do_run() {
	local dir=${1:-$PWD}
	if ! git -C "$dir" rev-parse --git-dir >/dev/null 2>&1; then
		dir=${XDG_CACHE_HOME:-$HOME/.cache}/revline/demo
		say "$PWD is not in a git repository; opening a demo repository at $dir"
		bash "$src/share/demo-repo.sh" "$dir"
	fi
	cd "$dir"
	exec "$build/bin/revline"
}

do_test() {
	ctest --test-dir "$build" --output-on-failure -j"$(nproc)"
}

case "${1:---run}" in
	--deps) install_deps ;;
	--build) install_deps; do_build ;;
	--run) install_deps; do_build; shift || true; do_run "${1:-}" ;;
	--test) packages+=("${test_packages[@]}"); install_deps; do_build; install_mcp_sdk; do_test ;;
	-h|--help) sed -n '2,14p' "$0" | sed 's/^# \{0,1\}//' ;;
	*) say "unknown option '$1' (use --run, --test, --deps or --build)"; exit 2 ;;
esac
