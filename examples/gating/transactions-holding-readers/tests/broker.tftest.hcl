# On the broker, as TestAccRecipeBroker_transactionsHoldingReaders arranges it (the pattern
# renamed to one topic): an idempotent producer's record, then a young open transaction's, which
# its coordinator keeps open: open and held (the Go test checks the offsets), not hanging. The
# check passes: a failed check fails a run that does not expect it. (A check block's data source
# cannot be referenced from a run's assert.)
run "young_open_transaction_passes" {
  command = apply # a check block's data source is read again during apply
}
