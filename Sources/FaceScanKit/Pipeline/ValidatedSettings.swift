import FaceScanCore

/// Settings that passed every rule (``ScanSettings/validate()`` lists them): what a
/// ``FaceScanSession`` scans with and the stages of a scan take. It cannot exist unvalidated: its
/// one initialiser is private to this file, called only by the one validating function every
/// route goes through — an app's ``ScanSettings`` (``ScanSettings/validated()``), a capture's
/// `settings` alone (`FaceScan`) or under the command line's flags or a library's
/// ``PipelineOptions`` (merged first, then validated once).
///
/// Reads as the ``ScanSettings`` it holds: `validated.maxFrames`, `validated.solid`, ….
@dynamicMemberLookup
public struct ValidatedSettings: Sendable, Hashable {
    /// The settings, every one in its range.
    public let settings: ScanSettings

    private init(_ settings: ScanSettings) {
        self.settings = settings
    }

    /// A setting of ``settings``.
    public subscript<T>(dynamicMember path: KeyPath<ScanSettings, T>) -> T { settings[keyPath: path] }

    /// The one validation: every field of `settings` checked by the rules (``ScanSettings/check(_:)``),
    /// each named in a message by `names` (`names.checks` is ignored: nothing is left unchecked).
    /// A field blamed on a capture's settings (an error field `settings.KEY`) is `file`'s bad
    /// input (``FaceScanError/badInput(_:)``); any other is ``FaceScanError/badSetting(_:)``.
    package static func validate(_ settings: ScanSettings, names: SettingNames, file: String) throws(FaceScanError)
        -> ValidatedSettings
    {
        var all = names
        all.checks = { _ in true }
        do throws(UsageError) {
            try settings.check(all)
        } catch {
            throw error.field?.hasPrefix("settings.") == true
                ? .badInput(InputError(file: file, field: error.field, error.message)) : .badSetting(error)
        }
        return ValidatedSettings(settings)
    }
}

extension ScanSettings {
    /// These settings, validated: the API's route. Messages name the fields as the API does
    /// (`ScanSettings.maxFrames must be at least 1, found 0`).
    ///
    /// - Throws: ``FaceScanError/badSetting(_:)`` naming the first field out of range.
    public func validated() throws(FaceScanError) -> ValidatedSettings {
        try ValidatedSettings.validate(self, names: .api, file: "<settings>")
    }

    /// Options over a capture's settings over the defaults (``init(options:settings:)``), merged,
    /// then validated once, each field named by whoever gave the value in force: an option by
    /// ``PipelineOptions/optionName(_:)`` (the command line's flag, ``FaceScanError/badSetting(_:)``),
    /// a capture's value by its key (`file: field 'settings.KEY': KEY must be …`,
    /// ``FaceScanError/badInput(_:)``), a default as such (`the default maxDistance`); a rule
    /// between two fields (`minDistance` given by one, `maxDistance` by the other) blames the one
    /// given last. An option's unknown format name is refused first.
    package static func validated(
        options o: PipelineOptions, capture s: CaptureSettings, file: String
    ) throws(FaceScanError) -> ValidatedSettings {
        _ = try lift { () throws(UsageError) in try o.outputFormats() }
        try checkOwnValues(of: s, file: file)
        let fromOptions = { (path: String) in optionsGive(o, path) }
        let fromCapture = { (path: String) in !optionsGive(o, path) && captureGives(s, path) }
        let names = SettingNames(
            name: { path in
                fromOptions(path)
                    ? o.optionName(path)
                    : fromCapture(path) ? captureKey(path) : "the default " + captureKey(path)
            },
            field: { path in fromOptions(path) ? o.optionName(path) : "settings." + captureKey(path) },
            rank: { path in fromOptions(path) ? 2 : fromCapture(path) ? 1 : 0 })
        return try ValidatedSettings.validate(ScanSettings(options: o, settings: s), names: names, file: file)
    }

    /// A capture's own values checked alone, named by their keys: a capture is a file, and a value
    /// out of range in it is that file's bad input even where an option replaces it (as an option's
    /// own bad value is refused whatever the capture says, ``check(_:)``). The same rules
    /// (``check(_:)``) over only the fields the capture gives; makes no ``ValidatedSettings``.
    static func checkOwnValues(of s: CaptureSettings, file: String) throws(FaceScanError) {
        let names = SettingNames(
            name: captureKey, field: { "settings." + captureKey($0) }, checks: { captureGives(s, $0) })
        do throws(UsageError) {
            try ScanSettings(options: PipelineOptions(), settings: s).check(names)
        } catch {
            throw .badInput(InputError(file: file, field: error.field, error.message))
        }
    }

    /// The options' own values checked alone, before any capture is read (the command line
    /// refuses a bad flag at once, before a file is opened, and `batch` once for every
    /// capture): the same rules (``check(_:)``) over only the fields the options give, named by
    /// ``PipelineOptions/optionName(_:)``. Makes no ``ValidatedSettings``: a run's settings are
    /// validated when its capture's are known.
    package static func check(_ o: PipelineOptions) throws(UsageError) {
        _ = try o.outputFormats()
        try ScanSettings(options: o, settings: CaptureSettings()).check(
            SettingNames(name: o.optionName, checks: { optionsGive(o, $0) }))
    }
}

extension PipelineOptions {
    /// ``formats`` as output formats (names as ``OutputFormat/init(name:)`` reads them); nil when
    /// not given. An unknown name is refused, naming the option: the one statement of that rule.
    package func outputFormats() throws(UsageError) -> [OutputFormat]? {
        guard let formats else { return nil }
        var list: [OutputFormat] = []
        for name in formats {
            guard let f = OutputFormat(name: name) else {
                throw UsageError(
                    "unknown output format '\(name)' in \(optionName("formats")) (supported: \(FileFormat.processOutputNames.joined(separator: ", ")))",
                    field: optionName("formats"))
            }
            list.append(f)
        }
        return list
    }
}
