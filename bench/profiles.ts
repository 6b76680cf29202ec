// Members with realistic names, emails and externalIds, the same for the SQL-built datasets
// (bench/dataset.ts) and the members the comparison creates over HTTP (bench/compare.ts), and the
// searches a support agent would type for them.
const FIRST = ['Anna', 'Ben', 'Carla', 'David', 'Elena', 'Farid', 'Grace', 'Hiro', 'Ines', 'Jonas', 'Kemal', 'Lena', 'Marta', 'Noah',
  'Olga', 'Pablo', 'Quinn', 'Rosa', 'Sven', 'Tara', 'Umar', 'Vera', 'Wei', 'Ximena', 'Yusuf', 'Zoe', 'Amir', 'Bianca', 'Chen', 'Dana',
  'Emil', 'Fatima', 'Gustav', 'Hanna', 'Igor', 'Julia', 'Karim', 'Lucia', 'Mateo', 'Nora'];
const LAST = ['Garcia', 'Smith', 'Müller', 'Rossi', 'Nowak', 'Silva', 'Kim', 'Yilmaz', 'Jensen', 'Dubois', 'Novak', 'Tanaka', 'Kowalski',
  'Fischer', 'Moreau', 'Lopez', 'Andersson', 'Petrov', 'Ivanova', 'Costa', 'Bakker', 'Horvat', 'Popescu', 'Nagy', 'Schmidt', 'Weber',
  'Wagner', 'Becker', 'Hoffmann', 'Schulz', 'Keller', 'Richter', 'Klein', 'Wolf', 'Neumann', 'Schwarz', 'Zimmermann', 'Braun',
  'Hofmann', 'Hartmann', 'Lange', 'Werner', 'Krause', 'Meier', 'Lehmann', 'Huber', 'Kaiser', 'Fuchs', 'Peters', 'Scholz'];
const DOMAINS = ['example.com', 'mail.example', 'shop.example.org', 'inbox.example.net'];

/** Member `i`'s profile (1-based). */
export function searchProfile(i: number): { externalId: string; email: string; name: string } {
  const first = FIRST[i % FIRST.length]!;
  const last = LAST[Math.floor(i / FIRST.length) % LAST.length]!;
  return {
    externalId: `cust-${String(i).padStart(7, '0')}`,
    // ASCII, as an email address must be to pass the API's validation (Müller → muller).
    email: `${first.toLowerCase()}.${last.toLowerCase().normalize('NFD').replace(/[\u0300-\u036f]/g, '')}${i % 997}@${DOMAINS[i % DOMAINS.length]}`,
    name: `${first} ${last}`,
  };
}

/**
 * `count` member searches over members 1..`members`: part of an email, the end of an id, or a full
 * name (up to members / 2,000 matches: names repeat every 2,000 members), in turn.
 */
export function searchPaths(members: number, count = 3_000): string[] {
  return Array.from({ length: count }, (_, n) => {
    const p = searchProfile(1 + ((n * 104_729) % members));
    return `/api/v1/members?search=${encodeURIComponent([p.email.slice(0, p.email.indexOf('@')), p.externalId.slice(-6), p.name][n % 3]!)}`;
  });
}
