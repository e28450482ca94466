#!/bin/sh
# The fidelity property test (t-property.sh) with --clone: whatever the
# working state, a private clone holds exactly it too.
# `FIDELITY_OPTS=--clone scripts/fuzz-fidelity` runs more cases.
FIDELITY_OPTS=--clone
export FIDELITY_OPTS
exec sh "$top_srcdir/tests/t-property.sh"
