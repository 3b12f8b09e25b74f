/// One element of an XML document as `XMLReader` gives it: its namespace and local name, its
/// attributes, the character data directly inside it and its child elements. A plain tree of
/// values: the reader's bounds keep it small.
struct XMLElement: Sendable, Equatable {
    /// An attribute: its name as written (prefix included) and its value, references expanded
    /// and white space normalised as XML says.
    struct Attribute: Sendable, Equatable {
        var name: String
        var value: String
    }

    /// The namespace the element's prefix (or the default namespace) is bound to; nil for none.
    var namespace: String?
    /// The name without its prefix.
    var name: String
    /// The attributes in document order, the namespace declarations (`xmlns`, `xmlns:p`) left out.
    var attributes: [Attribute] = []
    /// The character data directly inside, text and CDATA sections joined, line ends as `\n`.
    var text = ""
    /// The child elements in order.
    var children: [XMLElement] = []
    /// The line of the start tag (1-based).
    var line: Int

    /// The value of the attribute called `name` (no prefix), if there is one.
    func attribute(_ name: String) -> String? {
        attributes.first { $0.name == name }?.value
    }

    /// The child elements called `name` in `namespace`.
    func children(_ name: String, in namespace: String?) -> [XMLElement] {
        children.filter { $0.name == name && $0.namespace == namespace }
    }
}
