/// The samples of a Prometheus text exposition, read back so that `top` can work out rates.
struct MetricsText {
    /// One sample: a metric name, its labels, and its value.
    struct Sample: Equatable {
        var name: String
        var labels: [String: String]
        var value: Double
    }

    private(set) var samples: [Sample] = []

    /// Reads every sample line; comments and lines it cannot read are skipped.
    init(_ text: String) {
        for line in text.split(separator: "\n") where !line.hasPrefix("#") {
            guard let space = line.lastIndex(of: " "), let value = Double(line[line.index(after: space)...]) else { continue }
            let series = line[..<space]
            guard let brace = series.firstIndex(of: "{") else {
                samples.append(Sample(name: String(series), labels: [:], value: value))
                continue
            }
            samples.append(Sample(name: String(series[..<brace]), labels: Self.labels(series[series.index(after: brace)...]), value: value))
        }
    }

    /// The sum of a metric's samples whose labels include `matching`.
    func total(_ name: String, matching: [String: String] = [:]) -> Double {
        samples.lazy
            .filter { sample in sample.name == name && matching.allSatisfy { sample.labels[$0.key] == $0.value } }
            .reduce(0) { $0 + $1.value }
    }

    /// Reads `key="value",…}`; the values reqd writes hold no quote or comma.
    private static func labels(_ text: Substring) -> [String: String] {
        var labels: [String: String] = [:]
        for pair in text.dropLast().split(separator: ",") {
            guard let equals = pair.firstIndex(of: "=") else { continue }
            labels[String(pair[..<equals])] = String(pair[pair.index(after: equals)...].dropFirst().dropLast())
        }
        return labels
    }
}
