import CLI
import Glibc
import PushPipeline

let status = await PushWorkerCommand.tool.main(Array(CommandLine.arguments.dropFirst()))
exit(status)
