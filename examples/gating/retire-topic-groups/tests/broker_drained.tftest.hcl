# On the broker, once legacy-audit has committed at legacy.b's log end
# (TestAccRecipeBroker_retireTopicGroups): quiet for 8 days, every reader caught up: the gate passes.
run "drained_retires" {
  command = plan
  variables {
    retire_legacy_topics = true
  }
  assert {
    condition     = data.kafka_topics_drained.legacy.drained && length(data.kafka_topics_drained.legacy.not_drained) == 0
    error_message = "the topics should read drained"
  }
  assert {
    condition     = terraform_data.legacy_retirement_gate.input == true
    error_message = "the retirement should be planned"
  }
}
