# Against a broker, no mocks: then TestAccRecipeBroker_waitForDrain commits orders-service at the
# log end (3 and 1), and runs this file as the apply meant to wait runs:
#   terraform test -filter=tests/broker_caught_up.tftest.hcl -var wait_for_drain=true
# The wait finds the group drained at its first read (without the variable, one read finds it too).
run "apply_with_the_trigger_cuts_over" {
  command = apply
  assert {
    condition     = data.kafka_consumer_group_offsets.orders_drained.caught_up && data.kafka_consumer_group_offsets.orders_drained.total_lag == 0
    error_message = "orders-service has drained orders"
  }
  assert {
    condition     = terraform_data.cut_over.output == "orders-service reads orders-v2 (caught up: true)"
    error_message = "the cut-over should be applied"
  }
}
