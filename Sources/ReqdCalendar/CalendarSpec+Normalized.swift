extension CalendarSpec {
    /// The expression as `systemd-analyze calendar` prints it normalized
    /// (`Mon..Fri *-*-* 09:00:00 Europe/Berlin`).
    public var normalized: String {
        var text = ""
        if let weekdays {
            text += Self.format(weekdays: weekdays) + " "
        }
        text += Self.format(year, width: 4) + "-" + Self.format(month, width: 2) + (endOfMonth ? "~" : "-")
        text += Self.format(day, width: 2) + " " + Self.format(hour, width: 2) + ":" + Self.format(minute, width: 2) + ":"
        text += Self.format(second, width: 2, scale: Self.microsecondsPerSecond)
        if let zone { text += " " + zone }
        return text
    }

    private static func format(weekdays: UInt8) -> String {
        let names = ["Mon", "Tue", "Wed", "Thu", "Fri", "Sat", "Sun"]
        var parts: [String] = []
        var day = 0
        while day < 7 {
            guard weekdays & (1 << day) != 0 else {
                day += 1
                continue
            }
            var end = day
            while end + 1 < 7, weekdays & (1 << (end + 1)) != 0 { end += 1 }
            switch end - day {
            case 0: parts.append(names[day])
            case 1: parts.append(names[day] + "," + names[end])
            default: parts.append(names[day] + ".." + names[end])
            }
            day = end + 1
        }
        return parts.joined(separator: ",")
    }

    private static func format(_ components: [CalendarComponent]?, width: Int, scale: Int = 1) -> String {
        guard let components else { return "*" }
        if scale > 1, components == [CalendarComponent(start: 0, step: scale)] { return "*" }
        func number(_ value: Int) -> String {
            (value / scale).padded(width) + (value % scale > 0 ? "." + (value % scale).padded(6) : "")
        }
        return components.map { component in
            var text = number(component.start)
            if component.stop > 0 { text += ".." + number(component.stop) }
            if component.step > 0, !(component.stop > 0 && component.step == scale) {
                text += "/" + String(component.step / scale) + (component.step % scale > 0 ? "." + (component.step % scale).padded(6) : "")
            }
            return text
        }.joined(separator: ",")
    }
}
