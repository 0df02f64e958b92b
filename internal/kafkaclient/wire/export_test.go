package wire

// CheckShapeOf lets the tests walk kafka-go's own response types too, beyond shapes.
var CheckShapeOf = checkShapeOf
