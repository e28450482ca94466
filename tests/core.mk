## Tests: shell tests of forge verify: refusals, exit statuses, steps, hooks, hostile settings, signals.
