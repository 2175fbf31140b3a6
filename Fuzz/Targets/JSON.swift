// libFuzzer target: StrictJSON parse, serialise, parse again; the second parse must succeed and be equal.
import StrictJSON

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzJSON(_ data: UnsafePointer<UInt8>?, _ size: Int) -> Int32 {
    let bytes = [UInt8](UnsafeBufferPointer(start: data, count: size))
    guard let value = try? JSON.parse(bytes) else { return 0 }
    for pretty in [false, true] {
        var output: [UInt8] = []
        value.write(to: &output, pretty: pretty)
        // What the serialiser writes must be JSON the parser accepts, with the same value
        // (the depth limit cannot bite: the output is exactly as deep as the input).
        let again: JSONValue
        do {
            again = try JSON.parse(output)
        } catch {
            let text = String(decoding: output, as: UTF8.self)
            fatalError("round trip: serialised output does not parse (\(error)): \(text)")
        }
        if again != value {
            fatalError("round trip: value changed: \(String(decoding: output, as: UTF8.self))")
        }
    }
    return 0
}
