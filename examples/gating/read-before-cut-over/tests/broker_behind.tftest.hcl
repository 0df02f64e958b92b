# On the broker, once orders-service has committed at 5 on partition 0 (past its log end, 4) and at
# 0 on partition 1 (TestAccRecipeBroker_readBeforeCutOver): both partitions are behind.
run "commits_outside_block" {
  command = plan
  assert {
    condition     = local.behind == ["orders/0 (committed 5, needs 2)", "orders/1 (committed 0, needs 1)"]
    error_message = "both partitions should be behind: 0 past the log end, 1 short of it"
  }
  expect_failures = [terraform_data.drop_old_schema]
}
