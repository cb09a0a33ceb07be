// Builds the synthetic registry records (civil registry, social protection, health facilities) from a seeded PRNG.
import { demoVocabulary as vocab } from './demo-vocabulary.ts';
import type { SeededRandom } from './seeded-random.ts';

export interface CivilPerson {
  person_id: string;
  national_id: string;
  given_name: string;
  family_name: string;
  birth_date: string;
  sex: string;
  district: string;
  deceased: boolean;
  street_address: string;
  phone: string;
  registrar_notes: string | null;
}
export interface Household {
  household_id: string;
  district: string;
  municipality: string;
  household_size: number;
  poverty_band: string;
  enrollment_status: string;
  enrolled_on: string | null;
  head_person_id: string;
  case_notes: string | null;
}
export interface Member {
  member_id: string;
  household_id: string;
  person_id: string;
  role: string;
  age_band: string;
  bank_account_hint: string | null;
}
export interface Payment {
  payment_id: string;
  household_id: string;
  cycle: string;
  amount: number;
  paid_on: string | null;
  payment_status: string;
  payment_channel: string;
}
export interface Facility {
  facility_id: string;
  facility_name: string;
  district: string;
  facility_type: string;
  ownership: string;
  beds: number;
  opened_on: string;
  map_latitude: number;
  map_longitude: number;
  exact_latitude: number;
  exact_longitude: number;
  internal_notes: string | null;
}
export interface DemoRecords {
  persons: CivilPerson[];
  households: Household[];
  members: Member[];
  payments: Payment[];
  facilities: Facility[];
}

const PERSON_COUNT = 400;
const HOUSEHOLD_COUNT = 120;
const EMPTY_HOUSEHOLD_COUNT = 8;
const FACILITY_COUNT = 150;
const CYCLES = ['2026-01', '2026-02', '2026-03', '2026-04', '2026-05', '2026-06'];
const FIRST_CYCLE = '2026-01';
const LAST_CYCLE = '2026-06';
const DAY_MS = 86_400_000;

/** One future civil person; members and household heads are planned before ids are assigned. */
interface PersonSlot {
  district: string;
  age: number;
  role: string | null;
  personId?: string;
}

export function buildDemoRecords(random: SeededRandom): DemoRecords {
  const districtWeights = vocab.districts.map((d) => [d, d.weight] as const);
  const pickDistrict = () => random.weighted(districtWeights);

  // Households first: persons are then created to fill them, in the household's district.
  const empty = new Set(random.shuffle([...Array(HOUSEHOLD_COUNT).keys()]).slice(0, EMPTY_HOUSEHOLD_COUNT));
  const households: Household[] = [];
  const slotsByHousehold: PersonSlot[][] = [];
  for (let i = 0; i < HOUSEHOLD_COUNT; i++) {
    const district = pickDistrict();
    const size = random.weighted(vocab.weights.householdSize);
    const status = random.weighted(vocab.weights.enrollmentStatus);
    households.push({
      household_id: `hh-${1001 + i}`,
      district: district.code,
      municipality: random.pick(district.municipalities),
      household_size: size,
      poverty_band: random.weighted(vocab.weights.povertyBand),
      enrollment_status: status,
      enrolled_on: status === 'pending' ? null : randomDate(random, '2023-01-01', '2026-04-30'),
      head_person_id: '',
      case_notes: random.chance(0.4) ? random.pick(vocab.caseNotes) : null,
    });
    const registered = empty.has(i) ? 1 : Math.max(1, size - (random.chance(0.3) ? 1 : 0));
    const slots: PersonSlot[] = [];
    for (let m = 0; m < registered; m++) {
      const [role, age] = memberRoleAndAge(random, m);
      slots.push({ district: district.code, age, role });
    }
    slotsByHousehold.push(slots);
  }

  const allSlots = slotsByHousehold.flat();
  if (allSlots.length > PERSON_COUNT - 20) throw new Error(`too many members planned: ${allSlots.length}`);
  while (allSlots.length < PERSON_COUNT) {
    allSlots.push({ district: pickDistrict().code, age: random.int(0, 90), role: null });
  }

  // Shuffled so person ids do not cluster by household.
  const nationalIds = new Set<string>();
  const persons = random.shuffle(allSlots).map((slot, index): CivilPerson => {
    slot.personId = `per-${10001 + index}`;
    let nationalId: string;
    do nationalId = `FAKE-${random.int(100000, 999999)}`;
    while (nationalIds.has(nationalId));
    nationalIds.add(nationalId);
    const birth = addDays(
      `${Number(vocab.referenceDate.slice(0, 4)) - slot.age - 1}-01-02`,
      random.int(0, 364),
    );
    return {
      person_id: slot.personId,
      national_id: nationalId,
      given_name: random.pick(vocab.givenNames),
      family_name: random.pick(vocab.familyNames),
      birth_date: birth,
      sex: random.weighted(vocab.weights.sex),
      district: slot.district,
      deceased: random.chance(0.03),
      street_address: `${random.int(1, 199)} ${random.pick(vocab.streets)}`,
      phone: `555-01${String(random.int(0, 99)).padStart(2, '0')}`,
      registrar_notes: random.chance(0.25) ? random.pick(vocab.registrarNotes) : null,
    };
  });
  const birthDates = new Map(persons.map((p) => [p.person_id, p.birth_date]));

  const members: Member[] = [];
  households.forEach((household, i) => {
    const slots = slotsByHousehold[i] ?? [];
    household.head_person_id = slots[0]?.personId ?? '';
    if (empty.has(i)) return; // the head is known to the civil registry, no member is registered yet
    for (const slot of slots) {
      const age = ageOn(birthDates.get(slot.personId ?? '') ?? vocab.referenceDate, vocab.referenceDate);
      members.push({
        member_id: `mem-${5001 + members.length}`,
        household_id: household.household_id,
        person_id: slot.personId ?? '',
        role: slot.role ?? 'other',
        age_band: age < 5 ? '0_4' : age < 18 ? '5_17' : age < 60 ? '18_59' : '60_plus',
        bank_account_hint: age >= 18 && random.chance(0.7) ? `****${random.int(1000, 9999)}` : null,
      });
    }
  });

  const payments = households.flatMap((h) => householdPayments(random, h));
  payments.forEach((p, i) => {
    p.payment_id = `pay-${7001 + i}`;
  });
  return { persons, households, members, payments, facilities: buildFacilities(random, pickDistrict) };
}

function memberRoleAndAge(random: SeededRandom, position: number): [string, number] {
  if (position === 0) return ['head', random.int(20, 80)];
  if (position === 1 && random.chance(0.65)) return ['spouse', random.int(20, 75)];
  if (position === 1) return ['other', random.int(18, 70)];
  return random.chance(0.8) ? ['child', random.int(0, 17)] : ['dependent', random.int(60, 92)];
}

function householdPayments(random: SeededRandom, household: Household): Payment[] {
  if (household.enrolled_on === null) return [];
  // Households enrolled during 2026 are paid from the cycle after their enrolment month.
  const enrolledCycle = household.enrolled_on.slice(0, 7);
  const first = enrolledCycle < FIRST_CYCLE ? 0 : CYCLES.indexOf(enrolledCycle) + 1;
  const last =
    household.enrollment_status === 'enrolled'
      ? CYCLES.length - 1
      : household.enrollment_status === 'suspended'
        ? random.int(1, 3)
        : random.int(0, 2);
  const base = { high: 120, medium: 85, low: 55 }[household.poverty_band] ?? 55;
  const channel = random.weighted(vocab.weights.paymentChannel);
  const payments: Payment[] = [];
  for (const cycle of CYCLES.slice(first, last + 1)) {
    const status = random.weighted(
      cycle === LAST_CYCLE ? vocab.weights.latestCyclePaymentStatus : vocab.weights.paymentStatus,
    );
    payments.push({
      payment_id: '',
      household_id: household.household_id,
      cycle,
      amount: round(base + 14 * household.household_size + random.int(-500, 500) / 100, 2),
      paid_on: status === 'paid' || status === 'reversed' ? `${cycle}-${pad2(random.int(3, 20))}` : null,
      payment_status: status,
      payment_channel: random.chance(0.1) ? random.pick(vocab.weights.paymentChannel)[0] : channel,
    });
  }
  return payments;
}

function buildFacilities(
  random: SeededRandom,
  pickDistrict: () => (typeof vocab.districts)[number],
): Facility[] {
  const labels = {
    hospital: 'Hospital',
    health_centre: 'Health Centre',
    health_post: 'Health Post',
    clinic: 'Clinic',
  };
  const beds = {
    hospital: [60, 320],
    health_centre: [10, 45],
    health_post: [0, 4],
    clinic: [0, 20],
  } as const;
  const seen = new Map<string, number>();
  const facilities: Facility[] = [];
  for (let i = 0; i < FACILITY_COUNT; i++) {
    const district = pickDistrict();
    const type = random.weighted(vocab.weights.facilityType);
    const baseName = `${random.pick(district.municipalities)} ${labels[type]}`;
    const occurrence = (seen.get(baseName) ?? 0) + 1;
    seen.set(baseName, occurrence);
    // Two uniforms summed: points bunch towards the district centre.
    const latitude = round(district.latitude + (random.next() + random.next() - 1) * 0.22, 5);
    const longitude = round(district.longitude + (random.next() + random.next() - 1) * 0.22, 5);
    facilities.push({
      facility_id: `fac-${4001 + i}`,
      facility_name: occurrence === 1 ? baseName : `${baseName} ${occurrence}`,
      district: district.code,
      facility_type: type,
      ownership: random.weighted(vocab.weights.ownership),
      beds: random.int(beds[type][0], beds[type][1]),
      opened_on: randomDate(random, '1968-01-01', '2025-12-31'),
      map_latitude: round(latitude, 2),
      map_longitude: round(longitude, 2),
      exact_latitude: latitude,
      exact_longitude: longitude,
      internal_notes: random.chance(0.35) ? random.pick(vocab.facilityNotes) : null,
    });
  }
  return facilities;
}

function randomDate(random: SeededRandom, from: string, to: string): string {
  return addDays(from, random.int(0, Math.round((Date.parse(to) - Date.parse(from)) / DAY_MS)));
}

function addDays(isoDate: string, days: number): string {
  return new Date(Date.parse(`${isoDate}T00:00:00Z`) + days * DAY_MS).toISOString().slice(0, 10);
}

function ageOn(birthDate: string, onDate: string): number {
  const years = Number(onDate.slice(0, 4)) - Number(birthDate.slice(0, 4));
  return onDate.slice(5) < birthDate.slice(5) ? years - 1 : years;
}

function round(value: number, decimals: number): number {
  return Number(value.toFixed(decimals));
}

function pad2(n: number): string {
  return String(n).padStart(2, '0');
}
