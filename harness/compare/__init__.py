"""What every check shares: raw bit patterns (bits), key facts (keys), record-table pairing
(tables), step plans (steps), mismatch records (mismatch) and their printing (show), and the
per-chunk counters (tally)."""
