# Against a broker, no mocks: then TestAccRecipeBroker_firstRollout commits shipping-service at the
# log end (3 and 1), as a new consumer with auto.offset.reset=latest does at its first commit, and
# runs this file as the apply meant to wait runs:
#   terraform test -filter=tests/broker_caught_up.tftest.hcl -var wait_for_catch_up=true
# The wait finds the group caught up at its first read.
run "apply_with_the_trigger_cuts_over" {
  command = apply
  assert {
    condition     = data.kafka_consumer_group_offsets.shipping.exists && data.kafka_consumer_group_offsets.shipping.caught_up && data.kafka_consumer_group_offsets.shipping.total_lag == 0
    error_message = "shipping-service has caught up on shipments: ${jsonencode(data.kafka_consumer_group_offsets.shipping.not_caught_up)}"
  }
  assert {
    condition     = data.kafka_consumer_group_offsets.shipping.committed_offsets == tomap({ "shipments/0" = 3, "shipments/1" = 1 })
    error_message = "shipping-service should have committed at 3 and 1"
  }
  assert {
    condition     = terraform_data.cut_over.output == "shipments read by shipping-service (caught up: true)"
    error_message = "the cut-over should be applied"
  }
}
