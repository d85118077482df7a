#!/bin/sh
# Runs "$@" under a private Xvfb and exits with the command's own status (a window test's verdict).
# Xvfb picks a free display itself (-displayfd), so tests running in parallel never race for a
# display number, and no auth file or temporary directory is left for a cleanup step to trip on
# (xvfb-run -a did both: CI once saw "problem while cleaning up temporary directory", exit 5).
set -u
command -v Xvfb > /dev/null || { echo "with_xvfb.sh: Xvfb is missing (./setup.sh test installs it)" >&2; exit 127; }
fifo_dir=$(mktemp -d) || exit 127
num_file="$fifo_dir/display"
Xvfb -displayfd 3 -screen 0 1280x1024x24 -nolisten tcp 3> "$num_file" 2> "$fifo_dir/xvfb.log" &
xpid=$!
i=0
while [ ! -s "$num_file" ]; do
  if ! kill -0 "$xpid" 2> /dev/null || [ $i -ge 200 ]; then
    echo "with_xvfb.sh: Xvfb did not start:" >&2
    cat "$fifo_dir/xvfb.log" >&2
    kill "$xpid" 2> /dev/null
    rm -rf "$fifo_dir"
    exit 127
  fi
  i=$((i + 1))
  sleep 0.05
done
display=$(head -n 1 "$num_file")
DISPLAY=":$display" "$@"
rc=$?
kill "$xpid" 2> /dev/null
wait "$xpid" 2> /dev/null
rm -rf "$fifo_dir"
exit $rc
