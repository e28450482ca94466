## Tests: shell tests that the copy is exactly the working state, and the property test.

# One script per part of the working state; fidelity-lib.sh holds their
# shared checks, fidelity-gen.sh the random repositories of the property
# test, which scripts/fuzz-fidelity runs at length.
SHELL_TESTS += \
	tests/t-fidelity-edits.sh \
	tests/t-fidelity-moves.sh \
	tests/t-fidelity-merge.sh \
	tests/t-fidelity-names.sh \
	tests/t-fidelity-untracked.sh \
	tests/t-fidelity-flagged.sh \
	tests/t-fidelity-sparse.sh \
	tests/t-fidelity-submodules.sh \
	tests/t-partial.sh \
	tests/t-fidelity-nested.sh \
	tests/t-fidelity-config.sh \
	tests/t-fidelity-special.sh \
	tests/t-fidelity-proof.sh \
	tests/t-fidelity-plain.sh \
	tests/t-bigfile.sh \
	tests/t-fidelity-status.sh \
	tests/t-property.sh \
	tests/t-reuse-property.sh \
	tests/t-cache-property.sh \
	tests/t-walk-finds.sh
EXTRA_DIST += \
	tests/fidelity-lib.sh \
	tests/fidelity-gen.sh \
	tests/walk-moves.sh \
	scripts/fuzz-fidelity \
	scripts/fuzz-cache \
	scripts/fuzz-walk
