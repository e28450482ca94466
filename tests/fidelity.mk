## Tests: shell tests that the copy is exactly the working state, and the property test.
