# On franz-go's kfake, as TestAccRecipeBroker_transactionsHoldingReaders arranges it: orders holds
# an open transaction that no coordinator lists (ListTransactions answers none), so it hangs
# (KIP-664's rule, as kafka-transactions.sh find-hanging applies it). The check warns.
run "hanging_transaction_warns" {
  command         = apply
  expect_failures = [check.no_transaction_holds_orders_readers]
}
