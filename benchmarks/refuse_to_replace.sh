# Sourced by the scripts here, not run on its own: their refusal to write over a result already written.
# `benchmark train --output` rewrites an earlier result of its own kind (a rerun's), so until the
# ninety-first session record_train_cpu.sh and record_levers_cpu.sh, whose folder by default is the
# committed benchmarks/results/train_2cpu/, replaced its files without a word. Checked before anything
# is measured. Files of other names in the folder are fine: the record.log that cpu_session.sh's tee
# makes before a script starts, a later repeat's _r2 files beside a session's first.
refuse_to_replace() {  # refuse_to_replace <folder> <file name>...: exit 2 where the folder holds any of them
  local folder=$1 script name taken=() which="it"
  script=$(basename "$0")
  shift
  for name in "$@"; do
    if [ -e "$folder/$name" ]; then taken+=("$name"); fi
  done
  if [ ${#taken[@]} -eq 0 ]; then return 0; fi
  if [ ${#taken[@]} -gt 1 ]; then
    which="them"
    taken[0]+=" and $((${#taken[@]} - 1)) more of $script's files"
  fi
  echo "error: $folder holds ${taken[0]} already, which $script would write over:" \
       "give OUT=<a new folder>, or move $which away" >&2
  exit 2
}
