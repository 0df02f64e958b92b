# Delete the legacy.* topics only once none holds a record. topics_with_records lists the selected
# topics whose message_count is above 0. A pattern that matches no topic selects nothing, which the
# gate refuses too: length(message_counts) > 0.
terraform {
  required_providers {
    kafka = { source = "kafka-offsets/kafka" } # not hashicorp/kafka: name it in every module that uses it
  }
}

data "kafka_topics_offsets" "legacy" {
  name_regex = "legacy\\..*"
}

# Stands for the change that deletes them (kafka_topic resources removed, ...).
resource "terraform_data" "legacy_topics_deletion" {
  input = "delete legacy.*"

  lifecycle {
    precondition {
      condition = (length(data.kafka_topics_offsets.legacy.message_counts) > 0
      && length(data.kafka_topics_offsets.legacy.topics_with_records) == 0)
      error_message = (length(data.kafka_topics_offsets.legacy.message_counts) == 0
        ? "No topic matches legacy\\..*: nothing says the topics to delete are empty."
      : "Topics still holding records: ${join(", ", [for t in data.kafka_topics_offsets.legacy.topics_with_records : "${t} (${data.kafka_topics_offsets.legacy.message_counts[t]} offsets)"])}.")
    }
  }
}
