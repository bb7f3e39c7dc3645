"""What each leak did to the score: refit clones without the leak (in process) or replay the notebook with the
fixes applied (nbclient), and report the honest metric next to the reported one.

Modules: `scene` (fit and metric calls in the executed code), `locate` (the live model and rows), `plans` (how to
refit without each kind of leak), `refit` (clones, seeds, verdict), `budget` (time/memory, RNG and autolog
isolation), `measure` (findings in, evidence["impact"] out), `session` (the magics), `render` (text/HTML),
`outputs` and `verify` (`trainguard fix --verify`). Nothing heavy is imported here."""
