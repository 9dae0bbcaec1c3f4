"""The stage games as pure functions: the board's slots and what the conductor recorded in,
`prizes.lines.LineSpec`s (or an ordered result) out, `GameRefused` for what cannot have happened.
No database, no models: the prize service stores what they return (issue 14, PRIZES.md)."""
