# shellcheck shell=bash
# Shared by the shell test harnesses. `revline check`, and the UI when it
# quits during fix detection, leave a detached `revline detect-fixes`
# behind: detached_stop DIR stops every process whose environment names DIR
# (what a test started), except the calling shell.
detached_stop()
{
	local pid

	for pid in $(grep -l -s -z -F "$1" /proc/[0-9]*/environ 2>/dev/null | cut -d/ -f3); do
		[ "$pid" = $$ ] || [ "$pid" = "$BASHPID" ] || kill "$pid" 2>/dev/null || true
	done
}
