import ArgumentParser
import ReqdProtocol

extension JobState: ExpressibleByArgument {}
