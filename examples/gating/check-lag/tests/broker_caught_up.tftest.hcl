# Against a broker, no mocks: then TestAccRecipeBroker_checkLag commits orders-service at the log
# end (3 and 1). A failed check would fail the run.
run "caught_up_passes" {
  command = plan
}
