## Tests: check unit tests of the modules.
