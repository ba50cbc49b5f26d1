import ArgumentParser
import ReqdProtocol

extension JobKind: ExpressibleByArgument {}
