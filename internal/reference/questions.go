package reference

// Question is one of the fixed self-test questions: something a person
// would ask, and the reference fact (its exact text) that answers it.
type Question struct {
	Ask  string `json:"ask"`
	Fact string `json:"fact"`
}

// Questions are what `compartment selftest` and memory_selftest ask of the
// reference facts through the ordinary search; each must find its fact in
// the top 3. One or two per topic, phrased the way people ask.
var Questions = []Question{
	{"what port does postgres use", "Port 5432/tcp is registered to the postgresql service (PostgreSQL Database), also known as postgres."},
	{"which port does ssh use", "Port 22/tcp is registered to the ssh service (SSH Remote Login Protocol)."},
	{"what port does mysql use", "Port 3306/tcp is registered to the mysql service."},
	{"what is ip protocol number 6", "IP protocol number 6 is TCP (transmission control protocol)."},
	{"what is the mime type of a pdf file", "Files with the extension .pdf have the MIME type application/pdf."},
	{"what is the country code of germany", "The ISO 3166-1 country code of Germany is DE (alpha-3 DEU, numeric 276); its official name is Federal Republic of Germany."},
	{"what is the currency code of the japanese yen", "The ISO 4217 code of the currency Yen is JPY (numeric 392)."},
	{"what is the iso code of the cyrillic script", "The ISO 15924 script code of Cyrillic is Cyrl (numeric 220)."},
	{"what is the utc offset of tokyo", "In 2026 the time zone Asia/Tokyo (Tokyo, Japan) is at UTC+09:00 (JST) all year."},
	{"what time zone is new york in", "In 2026 the time zone America/New_York (New York, United States) is at UTC-05:00 (EST) in standard time and UTC-04:00 (EDT) during daylight saving time."},
	{"which vendor has pci id 8086", "PCI vendor ID 8086 belongs to Intel Corporation."},
	{"what does errno 110 mean", "Linux errno 110 means Connection timed out (ETIMEDOUT)."},
	{"what is the signal number of sigkill", "On Linux x86-64, SIGKILL is signal number 9 (Kill signal); by default it terminates the process."},
	{"what is the system call number of execve", "On Linux x86-64, the execve system call is number 59."},
	{"which code points does the basic latin unicode block cover", "The Unicode block Basic Latin spans code points U+0000 to U+007F."},
	{"what does grep do", "The grep command (also egrep, fgrep and rgrep) prints lines that match patterns."},
	{"what does git rebase do", "The git rebase command (also git-rebase) reapplies commits on top of another base tip."},
	{"what does the df command do", "The df command reports file system space usage."},
	{"what does du do", "The du command estimates file space usage."},
	{"what is ssh-keygen used for", "The ssh-keygen command is the OpenSSH authentication key utility."},
}
