# Unit tests of the gate: no broker, the verdict set by a mock. The gate reads one value, drained,
# which a bare mock sets to false: a test without an override refuses the retirement.
mock_provider "kafka" {}

variables {
  retire_audit_topic = true
  quiet_for          = "168h"
}

run "drained_retires" {
  command = plan
  override_data {
    target = data.kafka_topics_drained.audit
    values = { drained = true, not_drained = [], missing_topics = [] }
  }
  assert {
    condition     = length(terraform_data.audit_topic) == 0 && terraform_data.audit_drain_gate.input == true
    error_message = "the topic should be retired"
  }
}

# A bare mock reads drained = false: the absence of data never retires a topic.
run "bare_mock_blocks" {
  command         = plan
  expect_failures = [terraform_data.audit_drain_gate]
}

run "not_drained_blocks" {
  command = plan
  override_data {
    target = data.kafka_topics_drained.audit
    values = { drained = false, not_drained = ["group audit-reader has not caught up: audit/0: lag 3 (committed_offset 2, latest_offset 5)"], missing_topics = [] }
  }
  expect_failures = [terraform_data.audit_drain_gate]
}

# Not retiring: the gate lets every other change through, drained or not.
run "kept_topic_plans" {
  command = plan
  variables {
    retire_audit_topic = false
  }
  override_data {
    target = data.kafka_topics_drained.audit
    values = { drained = false, not_drained = ["audit: 1 open transaction (0 hanging): read_committed readers wait behind it, and it may still write"], missing_topics = [] }
  }
  assert {
    condition     = length(terraform_data.audit_topic) == 1
    error_message = "the topic should be kept"
  }
}

# Once deleted, the plans after the deletion pass as the configuration stands, and the check warns
# that the topic does not exist.
run "deleted_topic_passes_and_warns" {
  command = plan
  override_data {
    target = data.kafka_topics_drained.audit
    values = { drained = true, not_drained = [], missing_topics = ["audit"], selected_topics = [] }
  }
  assert {
    condition     = length(terraform_data.audit_topic) == 0 && terraform_data.audit_drain_gate.input == true
    error_message = "the plan after the deletion should pass"
  }
  expect_failures = [check.audit_topic_exists]
}
