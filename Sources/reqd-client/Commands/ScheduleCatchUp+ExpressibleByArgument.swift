import ArgumentParser
import ReqdProtocol

extension ScheduleCatchUp: ExpressibleByArgument {}
