# On the broker, once legacy-audit has committed at legacy.b's log end
# (TestAccRecipeBroker_retireTopicGroups): quiet for 8 days, every reader caught up: the gate passes.
run "drained_retires" {
  command = plan
  variables {
    retire_legacy_topics = true
  }
  assert {
    condition     = data.kafka_consumer_groups.legacy_readers[0].caught_up && length(local.lagging) == 0
    error_message = "every reader should be caught up"
  }
  assert {
    condition     = terraform_data.legacy_retirement_gate.input == true
    error_message = "the retirement should be planned"
  }
}
