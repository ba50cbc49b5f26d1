import ArgumentParser
import ReqdProtocol

extension ScheduleOverlap: ExpressibleByArgument {}
