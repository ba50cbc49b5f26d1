/// What every registration may carry, whatever its kind.
struct JobOptions {
    var key: String?
    var scope: String?
    var ephemeral: Bool?
    var bindConnection: Bool?
    var follow: Bool?
}
